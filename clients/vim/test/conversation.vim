" Vim 9 + ALE: whole conversations with the real server (run by run.sh
" after test.vim). The same conversations as clients/nvim/test/conversation.lua:
" three turns against the script provider and against a local Anthropic
" wire-format server, the whole buffer compared after each turn with
" clients/testdata/three-turn/; cancel, a 401, retries. While an answer
" streams the test only watches (`sleep`): no key, no cursor move, no
" :ALELint — ALE sends nothing by itself then, and the answer must still
" arrive whole.
" Env: CHATLS_BIN, CHATLS_WS, CHATLS_VIM, ALE_DIR, CHATLS_LOG, CHATLS_EXPECT, RESULT.
let s:passed = 0
let s:failed = 0
let s:out = []
let s:long = 60000

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
    call s:Log('FAIL ' . a:name . (a:0 ? ': ' . a:1 : ''))
  endif
endfunction

function! s:Finish() abort
  call s:Log(printf('vim conversation: %d passed, %d failed', s:passed, s:failed))
  execute s:failed == 0 ? 'qa!' : 'cq!'
endfunction

" Waits up to ms for the expression, letting channel messages in (sleep
" only: nothing is typed or moved).
function! s:Wait(ms, expr) abort
  let l:end = reltime()
  while !eval(a:expr) && reltimefloat(reltime(l:end)) * 1000 < a:ms
    sleep 50m
  endwhile
  return eval(a:expr)
endfunction

function! s:Text() abort
  return join(getline(1, '$'), "\n") . "\n"
endfunction

function! s:Show(text) abort
  return "\n" . substitute(a:text, "\n", "⏎\n", 'g')
endfunction

function! s:Read(name) abort
  return join(readfile($CHATLS_EXPECT . '/' . a:name, 'b'), "\n")
endfunction

function! s:Messages() abort
  return execute('messages')
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

function! s:Open(name, content) abort
  call writefile(split(a:content, "\n", 1)[:-2], $CHATLS_WS . '/' . a:name)
  execute 'edit! ' . fnameescape($CHATLS_WS . '/' . a:name)
  call s:Wait(s:long, 'ChatlsStatus() isnot# "chatls: starting"')
  call s:Check(a:name . ': server attached, status pushed', ChatlsStatus() isnot# 'chatls: starting', ChatlsStatus())
endfunction

function! s:Settle(want, status) abort
  let s:want = a:want
  let s:status = a:status
  return s:Wait(s:long, 's:Text() is# s:want && ChatlsStatus() =~# s:status')
endfunction

function! s:Conversation(label, name, prefix) abort
  call s:Open(a:name, a:prefix . s:Read('start.chat'))
  let l:turn1 = a:prefix . s:Read('after-1.chat')
  let l:turn2 = a:prefix . s:Read('after-2.chat')
  let l:turn3 = a:prefix . s:Read('after-3.chat')

  call cursor(line('$'), 1)
  execute "normal \<C-]>"
  let l:ok = s:Settle(l:turn1, 'waits for approval')
  call s:Check(a:label . ': turn 1 — the answer and its pending call, each once (nothing typed while it streams)', l:ok, s:Show(s:Text()))
  if !l:ok | return | endif

  call cursor(1, 1)
  messages clear
  execute "normal \\y"
  let l:line = 14 + len(split(a:prefix, "\n"))
  call s:Check(a:label . ': \y outside a call says which call it approves',
  \   s:Messages() =~# 'chatls: approving bash toolu_01 (line ' . l:line . ')', s:Messages())
  call cursor(1, 1)
  let l:ok = s:Settle(l:turn2, 'waits for approval')
  call s:Check(a:label . ': turn 2 — the result, sent again, the second answer and call', l:ok, s:Show(s:Text()))
  if !l:ok | return | endif

  call cursor(1, 1)
  normal ]p
  call s:Check(a:label . ': ]p moves to the pending call', getline('.') is# '```flemma:tool status=pending' && line('.') > 20, line('.') . ': ' . getline('.'))
  messages clear
  execute "normal \\n"
  call s:Check(a:label . ': \n in the call says nothing about another call', s:Messages() !~# 'rejecting', s:Messages())
  let l:ok = s:Settle(l:turn3, 'write your question under the last @You:')
  call s:Check(a:label . ': turn 3 — the rejection, sent again, the final answer', l:ok, s:Show(s:Text()))
endfunction

function! s:Main() abort
  call s:Conversation('script', 'three-turn.chat', '')
  let s:usage = 'last answer: scripted · 22.4k in (10.1k cached) · 850 out · $'
  call s:Wait(10000, 'stridx(ChatlsStatus(), s:usage) >= 0')
  call s:Check('script: the status shows the last answer''s usage', stridx(ChatlsStatus(), s:usage) >= 0, ChatlsStatus())
  set nomodified

  let l:wire = "```lua\nflemma.opt.provider = \"wire\"\n```\n"
  call s:Conversation('anthropic wire', 'wire.chat', l:wire)
  set nomodified

  " Cancel mid-answer.
  let l:start = l:wire . "@You:\n[slow] Count for me.\n"
  call s:Open('slow.chat', l:start)
  execute "normal \<C-]>"
  call s:Check('cancel: the slow answer streams', s:Wait(s:long, 's:Text() =~# "word3 "'), s:Show(s:Text()))
  call cursor(1, 1)
  unlet! g:chatls_last_cancel
  let l:t0 = reltime()
  execute "normal \\c"
  call s:Wait(s:long, 'exists("g:chatls_last_cancel")')
  let l:ms = exists('g:chatls_last_cancel') ? reltimefloat(reltime(l:t0, g:chatls_last_cancel)) * 1000 : -1
  call s:Check(printf('cancel: answered within 200 ms of the key (%.0f ms)', l:ms), l:ms >= 0 && l:ms < 200)
  let s:marker = '<!-- flemma:aborted: Response interrupted by the user. -->'
  call s:Wait(s:long, 'stridx(s:Text(), s:marker) >= 0 && s:Text() =~# "@You:\n\n$"')
  let l:got = s:Text()
  let l:words = matchstr(l:got, '^\V' . escape(l:start, '\') . "\n@Assistant:\n" . '\zs\_.\{-}\ze' . "\n\\+" . s:marker . "\n\n@You:\n\n" . '\$')
  let l:n = len(split(l:words))
  call s:Check('cancel: what arrived, once and in order, then the abort marker and @You:',
  \   l:n >= 3 && trim(l:words) is# join(map(range(1, l:n), '"word" . v:val'), ' '), s:Show(l:got))
  call s:Check('cancel: the abort marker once', count(l:got, s:marker) == 1, s:Show(l:got))
  set nomodified

  " A 401 leaves the buffer as it was.
  let s:refused = l:wire . "@You:\n[401] Hello?\n"
  call s:Open('refused.chat', s:refused)
  let s:buf = bufnr('')
  execute "normal \<C-]>"
  call s:Wait(s:long, '!empty(filter(ale#engine#GetLoclist(s:buf), "v:val.text =~# ''401''"))')
  call s:Check('401: an error diagnostic with the status', !empty(filter(ale#engine#GetLoclist(s:buf), 'v:val.text =~# "401"')), string(ale#engine#GetLoclist(s:buf)))
  call s:Check('401: the buffer is as it was (no @Assistant: left)', s:Wait(s:long, 's:Text() is# s:refused'), s:Show(s:Text()))
  set nomodified

  " Retries show in the status, then the answer arrives once.
  call s:Open('busy.chat', l:wire . "@You:\n[overloaded] Run two commands for me.\n")
  let s:busy = l:wire . substitute(s:Read('after-1.chat'), 'Run two commands', '[overloaded] Run two commands', '')
  let s:retry = ''
  execute "normal \<C-]>"
  call s:Wait(s:long, '[execute("if ChatlsStatus() =~# \"retrying in\" | let s:retry = ChatlsStatus() | endif"), s:Text() is# s:busy && ChatlsStatus() =~# "waits for approval"][1]')
  call s:Check('retry: the status shows "Overloaded; retrying in …"', s:retry =~# 'Overloaded; retrying in', s:retry)
  call s:Check('retry: the answer arrives once after the retries', s:Text() is# s:busy, s:Show(s:Text()))
endfunction

try
  call s:Main()
catch
  call s:Check('the test script ran to its end', 0, v:exception . ' at ' . v:throwpoint)
endtry
call s:Finish()
