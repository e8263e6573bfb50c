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

" The key names the maps below use, so that the server's messages say
" what to press (initializationOptions keys).
function! s:KeyNames() abort
  if get(g:, 'chatls_no_maps', 0)
    return {}
  endif
  let l:ll = get(g:, 'maplocalleader', '\')
  return {'advance': '<C-]>', 'approve': l:ll . 'y', 'reject': l:ll . 'n', 'approveAll': l:ll . 'Y', 'run': l:ll . 'r',
  \ 'cancel': l:ll . 'c', 'nextPending': ']p', 'prevPending': '[p'}
endfunction

function! s:InitOptions(buffer) abort
  let l:settings = deepcopy(get(g:, 'chatls_settings', {}))
  let l:settings.keys = extend(s:KeyNames(), get(l:settings, 'keys', {}))
  return l:settings
endfunction

call ale#linter#Define('chat', {
\   'name': 'chatls',
\   'lsp': 'stdio',
\   'language': 'chat',
\   'executable': {b -> get(g:, 'chatls_executable', 'chatls')},
\   'command': {b -> '%e ' . get(g:, 'chatls_args', '')},
\   'project_root': function('s:Root'),
\   'initialization_options': function('s:InitOptions'),
\   'lsp_config': {b -> {'chatls': get(g:, 'chatls_settings', {})}},
\})
let g:ale_linters = extend(get(g:, 'ale_linters', {}), {'chat': ['chatls']})

" --- The connection: server edits and the status --------------------------

" ALE applies a server's workspace/applyEdit only through a handler that its
" code-action command registers on the connection; register it (and ours,
" for chatls/status) as soon as the connection starts, so that the first
" <C-]> on a fresh file already gets its placeholders.
function! s:OnConnection(linter, details) abort
  call ale#lsp#RegisterCallback(a:details.connection_id, function('ale#codefix#HandleLSPResponse'))
  call ale#lsp#RegisterCallback(a:details.connection_id, function('s:OnMessage'))
endfunction

function! s:Connect(buffer) abort
  let l:exe = get(g:, 'chatls_executable', 'chatls')
  if !executable(l:exe)
    call setbufvar(a:buffer, 'chatls_status', 'not running: ' . l:exe . ' not found')
    if !get(s:, 'told_missing', 0)
      let s:told_missing = 1
      echohl ErrorMsg
      echomsg printf("chatls: the server '%s' is not on PATH. Install it (go install ./cmd/chatls in the chatls checkout) or set g:chatls_executable to its full path.", l:exe)
      echohl None
    endif
    return
  endif
  for l:linter in ale#linter#GetAll(['chat'])
    if l:linter.name is# 'chatls'
      call ale#lsp_linter#StartLSP(a:buffer, l:linter, function('s:OnConnection'))
    endif
  endfor
endfunction

" chatls/status: the document's status in one line, the one source for
" ChatlsStatus() (put it in 'statusline') and the echo after <C-]>.
function! s:OnMessage(conn_id, message) abort
  if get(a:message, 'method', '') isnot# 'chatls/status'
    return
  endif
  let l:params = get(a:message, 'params', {})
  let l:buffer = bufnr(ale#path#FromFileURI(get(l:params, 'uri', '')))
  if l:buffer > 0
    call setbufvar(l:buffer, 'chatls_status', get(l:params, 'text', ''))
    redrawstatus!
  endif
endfunction

" ChatlsStatus is for 'statusline': set statusline+=%{ChatlsStatus()}
function! ChatlsStatus() abort
  if &filetype isnot# 'chat'
    return ''
  endif
  let l:text = get(b:, 'chatls_status', '')
  return empty(l:text) ? 'chatls: starting' : 'chatls: ' . l:text
endfunction

augroup chatls_connect
  autocmd!
  autocmd FileType chat call s:Connect(bufnr(''))
augroup END

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

" The calls that wait for approval, in buffer order: a list of
" {'id', 'name', 'header', 'opener'} (line numbers), fence-aware.
function! ChatlsPendingCalls() abort
  let l:out = []
  let l:names = {}
  let l:open = 0
  let l:header = {}
  let l:lnum = 0
  for l:line in getline(1, '$')
    let l:lnum += 1
    if l:open
      let l:m = matchlist(l:line, '^\(`\{3,}\)\s*$')
      if !empty(l:m) && len(l:m[1]) >= l:open
        let l:open = 0
      endif
      continue
    endif
    let l:m = matchlist(l:line, '^\*\*Tool Use:\*\*\s*`\([^`]\+\)`\s*(`\([^`]\+\)`)')
    if !empty(l:m)
      let l:names[l:m[2]] = l:m[1]
    endif
    let l:m = matchlist(l:line, '^\*\*Tool Result:\*\*\s*`\([^`]\+\)`\s*\(.*\)$')
    if !empty(l:m)
      let l:header = {'id': l:m[1], 'header': l:lnum, 'pending': l:m[2] =~# '^(\(status=\)\?pending'}
    elseif !empty(l:header) && l:line !~# '^\s*$'
      if l:header.pending || l:line =~# '^```\+flemma:\(tool.*status=pending\|pending\)'
        call add(l:out, {'id': l:header.id, 'header': l:header.header, 'opener': l:line =~# '^```' ? l:lnum : 0})
      endif
      let l:header = {}
    endif
    let l:m = matchlist(l:line, '^\(`\{3,}\)[^`]*$')
    if !empty(l:m)
      let l:open = len(l:m[1])
    endif
  endfor
  for l:p in l:out
    let l:p.name = get(l:names, l:p.id, 'call')
  endfor
  return l:out
endfunction

" The pending call closest to the cursor (one above wins a tie), or {}.
function! s:NearestPending() abort
  let l:best = {}
  for l:p in ChatlsPendingCalls()
    if empty(l:best) || abs(l:p.header - line('.')) < abs(l:best.header - line('.'))
      let l:best = l:p
    endif
  endfor
  return l:best
endfunction

" Moves to the fence line of the next (1) or previous (-1) pending call,
" wrapping around.
function! ChatlsJumpPending(step) abort
  let l:all = ChatlsPendingCalls()
  if empty(l:all)
    echomsg 'chatls: no call waits for approval'
    return
  endif
  let l:list = a:step > 0 ? l:all : reverse(copy(l:all))
  let l:pick = l:list[0]
  for l:p in l:list
    let l:at = l:p.opener ? l:p.opener : l:p.header
    if (a:step > 0 && l:at > line('.')) || (a:step < 0 && l:at < line('.'))
      let l:pick = l:p
      break
    endif
  endfor
  call cursor(l:pick.opener ? l:pick.opener : l:pick.header, 1)
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

let s:phase_words = {'categorize': 'placeholders inserted', 'execute': 'running what is approved', 'send': 'ready to send'}

function! s:ShowAdvance(response) abort
  let l:r = get(a:response, 'result', {})
  let g:chatls_last_advance = l:r
  if has_key(a:response, 'error')
    echomsg 'chatls: ' . get(a:response.error, 'message', 'the step failed')
    return
  endif
  if type(l:r) != v:t_dict
    return
  endif
  " The counts come from the pushed status (the step's own edits land after
  " its answer); the step says what it did.
  let l:did = get(s:phase_words, get(l:r, 'phase', ''), get(l:r, 'message', ''))
  let l:message = get(l:r, 'message', '')
  if get(l:r, 'phase', '') is# 'send' && l:message is# 'sending'
    let l:did = 'sending to the model'
  elseif get(l:r, 'phase', '') is# 'send' && !empty(l:message) && l:message isnot# 'ready to send'
    let l:did = 'ready to send; ' . l:message " why it was not sent
  endif
  echomsg 'chatls: ' . (empty(l:did) ? ChatlsStatus()[8:] : l:did)
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

" The call under the cursor when it waits for approval, else the nearest
" one that does (saying which: it is not where the cursor is); ALE asks
" for the actions at the cursor, so the cursor goes there for the request
" and comes back.
function! ChatlsAction(pattern, except, ...) abort
  let l:verb = a:0 ? a:1 : ''
  let l:id = ChatlsToolId()
  let l:pending = ChatlsPendingCalls()
  let l:view = winsaveview()
  if empty(l:id) || empty(filter(copy(l:pending), 'v:val.id is# l:id'))
    let l:near = s:NearestPending()
    if !empty(l:near)
      let l:id = l:near.id
      if !empty(l:verb)
        echomsg printf('chatls: %s %s %s (line %d)', l:verb, l:near.name, l:near.id, l:near.header)
      endif
      call cursor(l:near.header, 1)
    elseif empty(l:id)
      echomsg 'chatls: no call waits for approval'
      return
    endif
  endif
  call s:GoToPlaceholder(l:id)
  call ale#codefix#Execute(0, function('s:PickAction', [a:pattern, a:except]))
  call winrestview(l:view)
endfunction

command! ChatlsAdvance call ChatlsAdvance()
command! ChatlsApprove call ChatlsAction('^Approve ', '^Approve all ', 'approving')
command! ChatlsReject call ChatlsAction('^Reject ', '^Reject all ', 'rejecting')
command! ChatlsNextPending call ChatlsJumpPending(1)
command! ChatlsPrevPending call ChatlsJumpPending(-1)
command! ChatlsApproveAll call ChatlsAction('^Approve all ', '')
command! ChatlsRun call s:PerCall('chatls.run')
command! ChatlsCancel call ChatlsCancel()

" ChatlsCancel stops the call under the cursor or, outside a call, the
" answer being written (what arrived stays).
function! ChatlsCancel() abort
  let l:id = ChatlsToolId()
  call s:Send('chatls.cancel', empty(l:id) ? {'uri': s:Uri()} : {'uri': s:Uri(), 'id': l:id},
  \ function('s:Cancelled', [l:id]))
endfunction

function! s:Cancelled(id, response) abort
  if has_key(a:response, 'error')
    echomsg 'chatls: ' . get(a:response.error, 'message', 'cancel failed')
  else
    let g:chatls_last_cancel = reltime()
    echomsg empty(a:id) ? 'chatls: stopped the answer' : 'chatls: cancelled ' . a:id
  endif
endfunction

if !get(g:, 'chatls_no_maps', 0)
  augroup chatls_maps
    autocmd!
    autocmd FileType chat nnoremap <buffer> <C-]> :ChatlsAdvance<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>y :ChatlsApprove<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>n :ChatlsReject<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>Y :ChatlsApproveAll<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>r :ChatlsRun<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>c :ChatlsCancel<CR>
    autocmd FileType chat nnoremap <buffer> <silent> ]p :ChatlsNextPending<CR>
    autocmd FileType chat nnoremap <buffer> <silent> [p :ChatlsPrevPending<CR>
    autocmd FileType chat nnoremap <buffer> <LocalLeader>a :ALECodeAction<CR>
  augroup END
endif
