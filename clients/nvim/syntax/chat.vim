" Syntax for .chat conversations (Flemma format, SPEC §1). Regexes only: the
" server's diagnostics are the source of truth; this only helps the eye.
if exists('b:current_syntax')
  finish
endif

" Role markers: `@You:` alone on a line.
syntax match chatRole /^@\w\+:\s*$/
" Tool headers: **Tool Use:** `NAME` (`ID`) and **Tool Result:** `ID` (STATUS)
syntax match chatToolHeader /^\*\*Tool \(Use\|Result\):\*\*/ nextgroup=chatToolName skipwhite
syntax match chatToolName /`[^`]\+`/ contained nextgroup=chatToolId,chatStatusSuffix skipwhite
syntax match chatToolId /(`[^`]\+`)/ contained
syntax match chatStatusSuffix /(\(status=\)\?\w\+[^)]*)/ contained contains=chatStatusWord
" Placeholder fence openers: ```flemma:tool status=pending, ```flemma:pending
syntax match chatPlaceholderFence /^`\{3,}flemma:.*$/ contains=chatStatusWord
syntax match chatStatusWord /\<\(pending\|approved\|rejected\|reject\|denied\|deny\|aborted\|error\)\>/ contained
" Other fences: everything between an opener and a closer of the same length.
syntax region chatFence start=/^\z(`\{3,}\)\(flemma:\)\@!.*$/ end=/^\z1`*\s*$/ keepend contains=NONE
syntax region chatThinking start=/^<thinking\>.*[^/]>\s*$/ end=/^<\/thinking>\s*$/
syntax match chatThinking /^<thinking\>.*\/>\s*$/
syntax match chatAborted /^<!-- flemma:aborted:.*-->\s*$/
syntax match chatTemplate /{{.\{-}}}\|{%.\{-}%}/
syntax match chatFileRef /@\.\{1,2}\/\S\+/

highlight default link chatRole Title
highlight default link chatToolHeader Keyword
highlight default link chatToolName Function
highlight default link chatToolId Identifier
highlight default link chatStatusSuffix Special
highlight default link chatPlaceholderFence Special
highlight default link chatStatusWord Todo
highlight default link chatFence String
highlight default link chatThinking Comment
highlight default link chatAborted WarningMsg
highlight default link chatTemplate PreProc
highlight default link chatFileRef Underlined

let b:current_syntax = 'chat'
