" Vim 9 + ALE test of clients/vim/chatls.vim against the real server: the
" "hostile minimal client" (full-text didChange, never answers applyEdit).
" Run by run.sh:  vim -N -u NONE -i NONE -n -es -S test.vim
" Env: CHATLS_BIN, CHATLS_WS, CHATLS_VIM (the snippet), ALE_DIR, CHATLS_LOG, RESULT.
let s:passed = 0
let s:failed = 0
let s:out = []

function! s:Log(line) abort
  call add(s:out, a:line)
  call writefile(s:out, $RESULT)
endfunction

function! s:Check(name, ok, ...) abort
  if a:ok
    let s:passed += 1
    call s:Log('PASS ' . a:name)
  else
    let s:failed += 1
    call s:Log('FAIL ' . a:name . (a:0 ? ': ' . string(a:1) : ''))
  endif
endfunction

function! s:Finish() abort
  if !empty(v:errmsg) | call s:Log('errmsg: ' . v:errmsg) | endif
  call s:Log(printf('vim: %d passed, %d failed', s:passed, s:failed))
  execute s:failed == 0 ? 'qa!' : 'cq!'
endfunction

" Waits up to ms for the expression to be true, letting channel messages in.
function! s:Wait(ms, expr) abort
  let l:n = a:ms / 50
  while l:n > 0 && !eval(a:expr)
    sleep 50m
    let l:n -= 1
  endwhile
  return eval(a:expr)
endfunction

let &runtimepath = $ALE_DIR . ',' . &runtimepath
filetype plugin on
runtime plugin/ale.vim
runtime autoload/ale/util.vim
let g:ale_enabled = 1
let g:chatls_executable = $CHATLS_BIN
let g:chatls_args = '--log-file ' . $CHATLS_LOG
execute 'source ' . fnameescape($CHATLS_VIM)
let g:maplocalleader = '\'

" A fresh file, <C-]> before anything else: ALE applies the server's edit
" only through a handler that a code action registers, so the snippet
" registers it when the connection starts.
call writefile(['@You:', 'list the files', '', '@Assistant:', '**Tool Use:** `bash` (`toolu_fresh`)', '', '```json',
\   '{"command":"ls fresh-dir"}', '```'], $CHATLS_WS . '/fresh.chat')
execute 'edit ' . fnameescape($CHATLS_WS . '/fresh.chat')
call s:Wait(8000, 'ChatlsStatus() =~# "without a placeholder"')
call s:Check('status pushed with the key to press', ChatlsStatus() is# 'chatls: 1 call without a placeholder (press <C-]> (next step))', ChatlsStatus())
execute "normal \<C-]>"
call s:Wait(15000, 'search("status=pending", "nw") > 0')
call s:Check('<C-]> on a fresh file inserts the placeholder', search('^```flemma:tool status=pending', 'nw') > 0, getline(1, '$'))
ALELint
call s:Wait(8000, 'ChatlsStatus() =~# "waits for approval"')
call s:Check('status after the step names the approve key', ChatlsStatus() is# 'chatls: 1 call waits for approval (press \y (approve))', ChatlsStatus())
set nomodified
bwipeout!

let s:notes = []
" ALE's messages go through echomsg; keep them for the log.
execute 'edit ' . fnameescape($CHATLS_WS . '/approve-echo.chat')
let s:buf = bufnr('')
let s:on_disk = readfile($CHATLS_WS . '/approve-echo.chat')
call s:Check('filetype is chat', &filetype is# 'chat', &filetype)

ALELint
call s:Wait(8000, '!empty(ale#engine#GetLoclist(s:buf))')
let s:loclist = ale#engine#GetLoclist(s:buf)
" ALE 3.3 shows Information diagnostics as warnings ('W').
call s:Check('pending approval diagnostic reaches ALE (not an error)', !empty(filter(copy(s:loclist), 'v:val.type is# "W" && v:val.linter_name is# "chatls"')), s:loclist)
call s:Check('opening the file changed nothing', getline(1, '$') == s:on_disk && !&modified)

" Code action titles, through ALE's menu callback.
let s:titles = []
function! s:Collect(data, items) abort
  let s:titles = map(copy(a:items), 'v:val[1].title')
endfunction
call cursor(search('^```flemma:tool status=pending', 'nw'), 1)
call ale#codefix#Execute(0, function('s:Collect'))
call s:Wait(5000, '!empty(s:titles)')
call s:Check('code actions Approve and Reject',
\   !empty(filter(copy(s:titles), 'v:val =~# "^Approve bash: \\$ echo hello-from-chatls"'))
\   && !empty(filter(copy(s:titles), 'v:val =~# "^Reject bash"')), s:titles)

" Approve with the key map, cursor inside the tool use's JSON.
call cursor(search('"command":"echo hello-from-chatls"', 'nw'), 1)
call s:Check('ChatlsToolId finds the call', ChatlsToolId() is# 'toolu_01A', ChatlsToolId())
execute "normal \\y"
" The server may replace the placeholder before we look: either shows the edit arrived.
call s:Wait(3000, 'search("status=approved", "nw") > 0 || index(getline(1, "$"), "hello-from-chatls") >= 0')
call s:Check('approve map applies the status edit', search('status=approved\|^hello-from-chatls$', 'nw') > 0, getline(1, '$'))
" The result arrives as a workspace/applyEdit that ALE applies without replying.
call s:Wait(20000, 'index(getline(1, "$"), "hello-from-chatls") >= 0')
call s:Check('result written into the buffer (applyEdit without reply)', index(getline(1, '$'), 'hello-from-chatls') >= 0, getline(1, '$'))

" ALE tells the server about the applied edit when it lints next; the
" pushed status says once the server has seen it.
ALELint
call s:Wait(5000, 'ChatlsStatus() =~# "ready to send"')
call s:Check('status: ready to send after the run', ChatlsStatus() is# 'chatls: ready to send (press <C-]> (next step))', ChatlsStatus())

" Phase 3: the next step sends to the (scripted) model; the answer streams in.
unlet! g:chatls_last_advance
execute "normal \<C-]>"
call s:Wait(5000, 'exists("g:chatls_last_advance")')
let s:adv = get(g:, 'chatls_last_advance', {})
call s:Check('<C-]> sends the conversation to the model', type(s:adv) == v:t_dict && get(s:adv, 'phase', '') is# 'send' && get(s:adv, 'message', '') is# 'sending', s:adv)
" Vim in -es mode fires no TextChanged, so ALE sends the streamed text only
" when asked; a user's Vim sends it by itself. The answer streams word by
" word: when the first words go out as an edit of their own (a loaded
" machine), the server waits for the didChange that shows it landed before
" it writes the rest.
function! s:LintedBufferHas(line) abort
  ALELint
  return index(getline(1, '$'), a:line) >= 0
endfunction
call s:Wait(15000, 's:LintedBufferHas("Hello from the scripted model.")')
call s:Check('the answer is written into the buffer', index(getline(1, '$'), 'Hello from the scripted model.') >= 0, getline(1, '$'))
call s:Check('the result is written exactly once', len(filter(getline(1, '$'), 'v:val is# "hello-from-chatls"')) == 1, getline(1, '$'))
function! s:LintedStatusMatches(pattern) abort
  ALELint
  return ChatlsStatus() =~# a:pattern
endfunction
call s:Wait(15000, 's:LintedStatusMatches("write your question under the last @You:")')
call s:Check('status: your turn again', ChatlsStatus() =~# 'write your question under the last @You:', ChatlsStatus())

write
let s:saved = readfile($CHATLS_WS . '/approve-echo.chat')
call s:Check('saved file holds the result and the answer', index(s:saved, 'hello-from-chatls') >= 0 && index(s:saved, 'Hello from the scripted model.') >= 0, s:saved)
call s:Finish()
