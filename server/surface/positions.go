package surface

import (
	"strings"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
)

// clampSpan keeps a span inside the text so a stale or hostile span can never
// index out of range.
func clampSpan(text string, s chatdoc.Span) chatdoc.Span {
	s.Start = min(max(s.Start, 0), len(text))
	s.End = min(max(s.End, s.Start), len(text))
	return s
}

func lspPosition(p chatdoc.Position) protocol.Position {
	return protocol.Position{Line: uint32(max(p.Line, 0)), Character: uint32(max(p.Character, 0))}
}

// lspRange maps a byte span to an LSP range in the negotiated encoding.
func lspRange(doc *chatdoc.Document, s chatdoc.Span, enc chatdoc.Encoding) protocol.Range {
	r := doc.Range(chatdoc.Span{Start: s.Start, End: max(s.End, s.Start)}, enc) // Range clamps to the text
	return protocol.Range{Start: lspPosition(r.Start), End: lspPosition(r.End)}
}

// offsetAt maps an LSP position to a byte offset (clamped by the mapper).
func offsetAt(doc *chatdoc.Document, pos chatdoc.Position, enc chatdoc.Encoding) int {
	return min(max(doc.Lines.Offset(pos, enc), 0), doc.Len())
}

// lineStart is the offset of the first byte of the line holding off.
func lineStart(text string, off int) int {
	off = min(max(off, 0), len(text))
	return strings.LastIndexByte(text[:off], '\n') + 1
}

// lineEnd is the offset of the line ending (\n or \r\n) of the line holding
// off, or the text's end.
func lineEnd(text string, off int) int {
	off = min(max(off, 0), len(text))
	i := strings.IndexByte(text[off:], '\n')
	if i < 0 {
		return len(text)
	}
	end := off + i
	if end > 0 && text[end-1] == '\r' {
		end--
	}
	return max(end, off)
}

// nextLineStart is the offset just past the line ending of the line holding off.
func nextLineStart(text string, off int) int {
	off = min(max(off, 0), len(text))
	i := strings.IndexByte(text[off:], '\n')
	if i < 0 {
		return len(text)
	}
	return off + i + 1
}

// trimSpanRight drops trailing whitespace (blank lines, line endings) from a
// span so ranges end on the last visible character.
func trimSpanRight(text string, s chatdoc.Span) chatdoc.Span {
	s = clampSpan(text, s)
	for s.End > s.Start && isSpace(text[s.End-1]) {
		s.End--
	}
	return s
}

// trimSpan drops leading and trailing whitespace from a span.
func trimSpan(text string, s chatdoc.Span) chatdoc.Span {
	s = trimSpanRight(text, s)
	for s.Start < s.End && isSpace(text[s.Start]) {
		s.Start++
	}
	return s
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// lineOf is the 0-based line of a byte offset (for folding, which is line based).
func lineOf(doc *chatdoc.Document, off int) int {
	return doc.Lines.LineOf(off)
}
