package chatdoc

import "unicode/utf8"

// LineCursor converts offsets to lines and positions like LineIndex, faster
// when they come near each other: it remembers the line chunk and the text
// piece of the last conversion, so a walk over a document's nodes in order
// (document symbols, folding ranges: four conversions per node) searches a
// 2 KB chunk instead of the whole index and the text. One per walk; not for
// concurrent use.
type LineCursor struct {
	li    *LineIndex
	chunk int // index of the last chunk used, -1 before the first
	line  int // index in that chunk of the last line found
	piece int // index of the last text piece used
}

// Cursor starts a cursor over the index.
func (li *LineIndex) Cursor() *LineCursor { return &LineCursor{li: li, chunk: -1} }

// LineOf is LineIndex.LineOf.
func (c *LineCursor) LineOf(offset int) int {
	line, _ := c.locate(max(0, min(offset, c.li.text.n)))
	return line
}

// Position is LineIndex.Position.
func (c *LineCursor) Position(offset int, enc Encoding) Position {
	li := c.li
	offset = max(0, min(offset, li.text.n))
	line, start := c.locate(offset)
	// The line up to a few bytes past offset: enough to see a "\r\n" around
	// offset and whether offset splits a character.
	text := c.slice(start, min(li.text.n, offset+utf8.UTFMax-1))
	at := offset - start
	if at > 0 && at < len(text) && text[at] == '\n' && text[at-1] == '\r' {
		at-- // inside "\r\n": the line's end, as clients count it (a line never starts between the two)
	}
	if enc == UTF8 {
		return Position{Line: line, Character: at}
	}
	return Position{Line: line, Character: units(text, at, enc)}
}

// Range is Document.Range through the cursor.
func (c *LineCursor) Range(s Span, enc Encoding) Range {
	return Range{Start: c.Position(s.Start, enc), End: c.Position(s.End, enc)}
}

// locate is LineIndex.locate, searching only the last chunk when offset is
// in it.
func (c *LineCursor) locate(offset int) (line, start int) {
	chunks := c.li.table().chunks
	k := c.chunk
	if k < 0 || offset < chunks[k].base || k+1 < len(chunks) && offset >= chunks[k+1].base {
		k = chunkAt(chunks, offset)
		c.chunk, c.line = k, 0
	}
	ch := &chunks[k]
	rel := int32(offset - ch.base)
	// A walk in order finds its line at or a few lines after the last one.
	for j := c.line; j < len(ch.starts) && j < c.line+4 && ch.starts[j] <= rel; j++ {
		if j+1 == len(ch.starts) || ch.starts[j+1] > rel {
			c.line = j
			return ch.firstLine + j, ch.base + int(ch.starts[j])
		}
	}
	line, start = lineInChunk(ch, offset)
	c.line = line - ch.firstLine
	return line, start
}

// slice is pieceText.slice, trying the last piece first.
func (c *LineCursor) slice(a, b int) string {
	t := c.li.text
	if a >= b {
		return ""
	}
	if c.piece >= len(t.pieces) || a < t.pieces[c.piece].start || a >= t.pieces[c.piece].start+len(t.pieces[c.piece].s) {
		c.piece = t.find(a)
	}
	if p := t.pieces[c.piece]; b <= p.start+len(p.s) {
		return p.s[a-p.start : b-p.start]
	}
	return t.slice(a, b)
}
