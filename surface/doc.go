// Package surface turns a parsed .chat snapshot into what an editor shows:
// tool diagnostics, quick fixes, outline, folding, semantic tokens,
// completion, selection ranges, document links and hover text.
//
// Every function is pure: it reads an immutable *chatdoc.Document and returns
// LSP values. All positions go through the chatdoc mapper with the encoding
// negotiated in initialize, so utf-16, utf-8 and utf-32 clients agree. No
// function panics on any input; server handlers stay thin wrappers.
package surface
