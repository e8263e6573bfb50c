; Fenced JSON tool inputs and inline markdown, as for markdown.
; inherits: markdown
