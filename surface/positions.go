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

// LSPPosition is p on the wire; a negative line or character (a stale
// computation) becomes 0. It and LSPRange are the one conversion from the
// document's positions to LSP's, for surface and server alike.
func LSPPosition(p chatdoc.Position) protocol.Position {
	return protocol.Position{Line: uint32(max(p.Line, 0)), Character: uint32(max(p.Character, 0))}
}

// LSPRange maps a byte span to an LSP range in the negotiated encoding.
func LSPRange(doc *chatdoc.Document, s chatdoc.Span, enc chatdoc.Encoding) protocol.Range {
	return lspRangeVia(doc.Lines.Cursor(), s, enc)
}

// lspRangeVia is lspRange through a cursor: for a walk that maps the spans
// of many nodes in document order (symbols: four conversions per node).
func lspRangeVia(cur *chatdoc.LineCursor, s chatdoc.Span, enc chatdoc.Encoding) protocol.Range {
	r := cur.Range(chatdoc.Span{Start: s.Start, End: max(s.End, s.Start)}, enc) // Range clamps to the text
	return protocol.Range{Start: LSPPosition(r.Start), End: LSPPosition(r.End)}
}

// offsetAt maps an LSP position to a byte offset (clamped by the mapper).
func offsetAt(doc *chatdoc.Document, pos chatdoc.Position, enc chatdoc.Encoding) int {
	return min(max(doc.Lines.Offset(pos, enc), 0), doc.Len())
}

// textWindow reads part of a document's text, doc.Text()[base:base+len(s)],
// with absolute offsets, so that a request never joins the whole text (after
// an edit Document.Text copies the document, once per snapshot). It starts
// at a line start and ends at one (or at the text's end), which makes the
// line helpers exact, and grows when a read falls outside it. Spans are
// clamped to the whole text, as before. One per request: not safe for
// concurrent use.
type textWindow struct {
	doc  *chatdoc.Document
	s    string
	base int
	n    int // length of the whole text
}

// windowAt is a window of the lines holding [lo, hi] (clamped).
func windowAt(doc *chatdoc.Document, lo, hi int) textWindow {
	w := textWindow{doc: doc, n: doc.Len()}
	lo, hi = w.clampRange(lo, hi)
	if hi > lo {
		// Usually [lo, hi) is whole lines already (a message, a fence body):
		// check the bytes before lo and before hi instead of the line index.
		from := max(lo-1, 0)
		s := doc.Slice(from, hi)
		if (lo == 0 || s[0] == '\n') && (hi == w.n || s[len(s)-1] == '\n') {
			w.s, w.base = s[lo-from:], lo
			return w
		}
	}
	w.load(lo, hi)
	return w
}

// spanWindow is windowAt for a span.
func spanWindow(doc *chatdoc.Document, s chatdoc.Span) textWindow {
	return windowAt(doc, s.Start, s.End)
}

func (w *textWindow) clampRange(lo, hi int) (int, int) {
	lo = min(max(lo, 0), w.n)
	return lo, min(max(hi, lo), w.n)
}

// load reads from the start of lo's line through the end of hi's line.
func (w *textWindow) load(lo, hi int) {
	lines := w.doc.Lines
	start := lines.LineStart(lines.LineOf(lo))
	end := w.n
	if l := lines.LineOf(hi); l+1 < lines.LineCount() {
		end = lines.LineStart(l + 1)
	}
	w.s, w.base = w.doc.Slice(start, end), start
}

// need makes bytes [lo, hi) readable, and all of hi's line when line is set.
func (w *textWindow) need(lo, hi int, line bool) {
	lo, hi = w.clampRange(lo, hi)
	end := w.base + len(w.s)
	if lo >= w.base && (hi < end || hi == end && (!line || end == w.n)) {
		return
	}
	w.load(min(lo, w.base), max(hi, end))
}

// clamp keeps a span inside the text so a stale or hostile span can never
// index out of range (as clampSpan on the whole text).
func (w *textWindow) clamp(s chatdoc.Span) chatdoc.Span {
	s.Start, s.End = w.clampRange(s.Start, s.End)
	return s
}

// str is text[a:b] for 0 <= a <= b <= n.
func (w *textWindow) str(a, b int) string {
	w.need(a, b, false)
	return w.s[a-w.base : b-w.base]
}

// at is text[off] for 0 <= off < n.
func (w *textWindow) at(off int) byte {
	w.need(off, off+1, false)
	return w.s[off-w.base]
}

// lineStart is the offset of the first byte of the line holding off.
func (w *textWindow) lineStart(off int) int {
	off = min(max(off, 0), w.n)
	w.need(off, off, false) // the window starts at a line start
	return w.base + strings.LastIndexByte(w.s[:off-w.base], '\n') + 1
}

// lineEnd is the offset of the line ending (\n or \r\n) of the line holding
// off, or the text's end.
func (w *textWindow) lineEnd(off int) int {
	off = min(max(off, 0), w.n)
	w.need(off, off, true)
	rel := off - w.base
	i := strings.IndexByte(w.s[rel:], '\n')
	if i < 0 {
		return w.n // the window holds off's whole line: it ends with the text
	}
	end := rel + i
	if end > 0 && w.s[end-1] == '\r' {
		end--
	}
	return w.base + max(end, rel)
}

// nextLineStart is the offset just past the line ending of the line holding off.
func (w *textWindow) nextLineStart(off int) int {
	off = min(max(off, 0), w.n)
	w.need(off, off, true)
	i := strings.IndexByte(w.s[off-w.base:], '\n')
	if i < 0 {
		return w.n
	}
	return off + i + 1
}

// trimSpanRight drops trailing whitespace (blank lines, line endings) from a
// span so ranges end on the last visible character.
func (w *textWindow) trimSpanRight(s chatdoc.Span) chatdoc.Span {
	s = w.clamp(s)
	w.need(s.Start, s.End, false)
	for s.End > s.Start && isSpace(w.s[s.End-1-w.base]) {
		s.End--
	}
	return s
}

// trimSpan drops leading and trailing whitespace from a span.
func (w *textWindow) trimSpan(s chatdoc.Span) chatdoc.Span {
	s = w.trimSpanRight(s)
	for s.Start < s.End && isSpace(w.s[s.Start-w.base]) {
		s.Start++
	}
	return s
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
