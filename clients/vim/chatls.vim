" chatls for Vim 8.2+/9 with ALE (https://github.com/dense-analysis/ale).
" Source it after ALE is loaded, e.g. from ~/.vim/plugin/chatls.vim, or copy
" the parts you want into your vimrc.
"
" ALE is a minimal LSP client: it sends the whole text on every change and
" never answers the server's workspace/applyEdit (it does apply the edit).
" chatls handles both; the one thing to know is that ALE sends changes when
" it lints, so keep g:ale_lint_on_text_changed on (its default).
"
" Options (set before sourcing):
"   g:chatls_executable  the server binary (default 'chatls')
"   g:chatls_args        extra arguments, e.g. '--log-file /tmp/chatls.log'
"   g:chatls_settings    SPEC §4 settings dict, e.g. {'tools': {'autoApprove': ['$default']}}
"   g:chatls_no_maps     set to 1 to skip the key maps below

augroup chatls_filetype
  autocmd!
  autocmd BufRead,BufNewFile *.chat setfiletype chat
augroup END

" The workspace root: the nearest directory with .chatls.toml or .git, else
" the document's directory (SPEC §4).
function! s:Root(buffer) abort
  let l:dir = fnamemodify(bufname(a:buffer), ':p:h')
  for l:marker in ['.chatls.toml', '.git']
    let l:found = ale#path#FindNearestFile(a:buffer, l:marker)
    if empty(l:found)
      let l:found = ale#path#FindNearestDirectory(a:buffer, l:marker)
    endif
    if !empty(l:found)
      return fnamemodify(substitute(l:found, '/$', '', ''), ':h')
    endif
  endfor
  return l:dir
endfunction

call ale#linter#Define('chat', {
\   'name': 'chatls',
\   'lsp': 'stdio',
\   'language': 'chat',
\   'executable': {b -> get(g:, 'chatls_executable', 'chatls')},
\   'command': {b -> '%e ' . get(g:, 'chatls_args', '')},
\   'project_root': function('s:Root'),
\   'initialization_options': {b -> get(g:, 'chatls_settings', {})},
\   'lsp_config': {b -> {'chatls': get(g:, 'chatls_settings', {})}},
\})
let g:ale_linters = extend(get(g:, 'ale_linters', {}), {'chat': ['chatls']})

" --- Reading the buffer: the tool call under the cursor --------------------

" The ID of the tool call whose use or result block holds the cursor.
function! ChatlsToolId() abort
  let l:lnum = search('^\*\*Tool \(Use\|Result\):\*\*\|^@\w\+:\s*$', 'bcnW')
  let l:line = l:lnum ? getline(l:lnum) : ''
  let l:m = matchlist(l:line, '^\*\*Tool Use:\*\*\s*`[^`]\+`\s*(`\([^`]\+\)`)')
  if !empty(l:m)
    return l:m[1]
  endif
  let l:m = matchlist(l:line, '^\*\*Tool Result:\*\*\s*`\([^`]\+\)`')
  return empty(l:m) ? '' : l:m[1]
endfunction

" Moves the cursor to the fence opener of id's placeholder (where the
" server offers Approve/Reject), unless it is already inside that block.
function! s:GoToPlaceholder(id) abort
  let l:header = search('^\*\*Tool Result:\*\*\s*`' . escape(a:id, '.*[]\~') . '`', 'cnw')
  if l:header && line('.') < l:header
    call cursor(l:header, 1)
    call search('^```', 'W')
  endif
endfunction

" --- Commands -------------------------------------------------------------

function! s:Send(command, args, ...) abort
  let l:Handler = a:0 ? a:1 : {r -> 0}
  let l:msg = ale#lsp#message#ExecuteCommand(a:command, [a:args])
  call ale#lsp_linter#SendRequest(bufnr(''), 'chatls', l:msg, l:Handler)
endfunction

function! s:Uri() abort
  return ale#path#ToFileURI(expand('%:p'))
endfunction

function! s:ShowAdvance(response) abort
  let l:r = get(a:response, 'result', {})
  let g:chatls_last_advance = l:r
  if type(l:r) != v:t_dict
    return
  endif
  echomsg get(l:r, 'ready', v:false) is v:true ? 'chatls: ready to send'
  \   : printf('chatls: %s, %d pending, %d running', get(l:r, 'phase', ''), get(l:r, 'pending', 0), get(l:r, 'running', 0))
endfunction

function! ChatlsAdvance() abort
  call s:Send('chatls.advance', {'uri': s:Uri()}, function('s:ShowAdvance'))
endfunction

function! s:PerCall(command) abort
  let l:id = ChatlsToolId()
  if empty(l:id)
    echomsg 'chatls: the cursor is not in a tool call'
    return
  endif
  call s:Send(a:command, {'uri': s:Uri(), 'id': l:id})
endfunction

" Applies the server's code action whose title matches pattern; going
" through ALE's code-action machinery registers the handler that applies
" the server's later workspace/applyEdit (the tool's result).
function! s:PickAction(pattern, except, data, items) abort
  for [l:kind, l:item] in a:items
    if l:item.title =~# a:pattern && (empty(a:except) || l:item.title !~# a:except)
      call ale#codefix#ApplyLSPCodeAction(a:data, l:item)
      " ALE sends the changed text when it lints; do it now.
      ALELint
      return
    endif
  endfor
  echomsg 'chatls: no such action here'
endfunction

function! ChatlsAction(pattern, except) abort
  let l:id = ChatlsToolId()
  if !empty(l:id)
    call s:GoToPlaceholder(l:id)
  endif
  call ale#codefix#Execute(0, function('s:PickAction', [a:pattern, a:except]))
endfunction

command! ChatlsAdvance call ChatlsAdvance()
command! ChatlsApprove call ChatlsAction('^Approve ', '^Approve all ')
command! ChatlsReject call ChatlsAction('^Reject ', '^Reject all ')
command! ChatlsApproveAll call ChatlsAction('^Approve all ', '')
command! ChatlsRun call s:PerCall('chatls.run')
command! ChatlsCancel call s:PerCall('chatls.cancel')

if !get(g:, 'chatls_no_maps', 0)
  augroup chatls_maps
    autocmd!
    autocmd FileType chat nnoremap <buffer> <C-]> :ChatlsAdvance<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>y :ChatlsApprove<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>n :ChatlsReject<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>Y :ChatlsApproveAll<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>r :ChatlsRun<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>a :ALECodeAction<CR>
  augroup END
endif
