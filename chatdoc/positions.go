package chatdoc

import (
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Encoding is the unit a Position's Character counts (LSP positionEncoding).
type Encoding int

const (
	UTF16 Encoding = iota // LSP default
	UTF8
	UTF32
)

// Position is a 0-based line and a character offset in the encoding's units.
type Position struct{ Line, Character int }

// Range is a pair of positions, LSP style.
type Range struct{ Start, End Position }

// lineChunkSize is how many line starts one chunk holds when built. Chunks let
// an edit rebuild only the lines it touches and shift the rest in O(chunks).
const lineChunkSize = 512

// lineChunk holds the starts of consecutive lines, relative to base.
type lineChunk struct {
	firstLine int
	base      int     // absolute offset of the chunk's first line
	starts    []int32 // relative line starts; starts[0] == 0; shared between snapshots
}

// LineIndex maps byte offsets to lines and back, counting lines as LSP
// clients do: a line ends at "\n", "\r\n" or a lone "\r" (LSP 3.17; VS
// Code's text model), so positions sent to and read from editors agree
// even in a document with a lone carriage return. (The parser's lines end
// at "\n" only: a lone "\r" never starts a role marker or a fence.)
// Immutable; updated copies share unchanged chunks. The line starts of a
// parsed text are found on the first conversion, not by Parse: `chatls
// check` converts a handful of offsets, often none, and the scan of a 10 MB
// text for its 282,000 line starts took a third of Parse's time (both cores
// shared between it and the two halves of the body scan).
type LineIndex struct {
	text *pieceText
	once sync.Once
	tab  lineTable // read through table()
}

// lineTable is the line starts, in chunks.
type lineTable struct {
	chunks []lineChunk
	lines  int
}

// NewLineIndex indexes the line starts of text, on first use.
func NewLineIndex(text string) *LineIndex { return newLineIndex(newPieceText(text)) }

func newLineIndex(t *pieceText) *LineIndex { return &LineIndex{text: t} }

// indexOf is the index of t whose line starts are already known.
func indexOf(t *pieceText, chunks []lineChunk) *LineIndex {
	li := &LineIndex{text: t}
	li.once.Do(func() { li.tab = lineTable{chunks: chunks, lines: countLines(chunks)} })
	return li
}

// table is the line starts, found on the first call.
func (li *LineIndex) table() *lineTable {
	li.once.Do(func() {
		chunks := appendChunks(nil, li.text, 0, li.text.n, 0, true)
		li.tab = lineTable{chunks: chunks, lines: countLines(chunks)}
	})
	return &li.tab
}

func countLines(chunks []lineChunk) int {
	last := chunks[len(chunks)-1]
	return last.firstLine + len(last.starts)
}

// appendChunks scans text[from:to) (which starts at a line start) and appends
// chunks of its line starts. A line start at `to` is recorded only when atEnd,
// since otherwise the following chunk owns it.
func appendChunks(chunks []lineChunk, t *pieceText, from, to, firstLine int, atEnd bool) []lineChunk {
	cur := lineChunk{firstLine: firstLine, base: from, starts: make([]int32, 1, min(lineChunkSize, 64))}
	pos := from
	for s := range t.parts(from, to) {
		// Most texts have no "\r": then a line break is a "\n", found by the
		// much faster single-byte search.
		find := indexLineBreak
		if strings.IndexByte(s, '\r') < 0 {
			find = indexNewline
		}
		for rest := s; ; {
			i := find(rest)
			if i < 0 {
				break
			}
			lone := rest[i] == '\r'
			rest = rest[i+1:]
			next := pos + len(s) - len(rest)
			if lone && next < t.n && t.byteAt(next) == '\n' {
				continue // "\r\n": the line ends at its "\n"
			}
			if next == to && !atEnd {
				break
			}
			if len(cur.starts) == lineChunkSize {
				chunks = append(chunks, cur)
				cur = lineChunk{firstLine: cur.firstLine + lineChunkSize, base: next, starts: make([]int32, 1, 64)}
			} else {
				cur.starts = append(cur.starts, int32(next-cur.base))
			}
		}
		pos += len(s)
	}
	return append(chunks, cur)
}

func indexLineBreak(s string) int { return strings.IndexAny(s, "\r\n") }
func indexNewline(s string) int   { return strings.IndexByte(s, '\n') }

// LineCount is the number of lines; an empty text and a text ending in a
// newline both count the (empty) last line.
func (li *LineIndex) LineCount() int { return li.table().lines }

// LineStart is the offset of the line's first byte, clamped to [0, len].
func (li *LineIndex) LineStart(line int) int {
	if line < 0 {
		return 0
	}
	if line >= li.table().lines {
		return li.text.n
	}
	c := li.chunkOfLine(line)
	return c.base + int(c.starts[line-c.firstLine])
}

// lineEnd is the offset of the line's end before its "\n", "\r\n" or "\r".
func (li *LineIndex) lineEnd(line int) int {
	end := li.text.n
	if line+1 < li.table().lines {
		end = li.LineStart(line+1) - 1 // the "\n" or lone "\r"
		if li.text.byteAt(end) == '\n' && end > li.LineStart(line) && li.text.byteAt(end-1) == '\r' {
			end--
		}
	}
	return end
}

func (li *LineIndex) chunkOfLine(line int) *lineChunk {
	chunks := li.table().chunks
	i := sort.Search(len(chunks), func(i int) bool { return chunks[i].firstLine > line }) - 1
	return &chunks[i]
}

// LineOf returns the 0-based line holding offset (clamped).
func (li *LineIndex) LineOf(offset int) int {
	line, _ := li.locate(max(0, min(offset, li.text.n)))
	return line
}

// locate is the line holding offset (0 <= offset <= len) and its start.
func (li *LineIndex) locate(offset int) (line, start int) {
	chunks := li.table().chunks
	return lineInChunk(&chunks[chunkAt(chunks, offset)], offset)
}

// chunkAt is the index of the last chunk whose base is at or before offset.
// Whole-document requests convert an offset for every node, so the
// searches are written out rather than sort.Search's closures.
func chunkAt(chunks []lineChunk, offset int) int {
	lo, hi := 0, len(chunks)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if chunks[mid].base <= offset {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// lineInChunk is the line of chunk c holding offset, and its start.
func lineInChunk(c *lineChunk, offset int) (line, start int) {
	rel := int32(offset - c.base)
	lo, hi := 0, len(c.starts) // the last start <= rel
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if c.starts[mid] <= rel {
			lo = mid
		} else {
			hi = mid
		}
	}
	return c.firstLine + lo, c.base + int(c.starts[lo])
}

// Position converts a byte offset (clamped to [0, len]) to a position. An
// offset inside a UTF-8 sequence counts only the characters before it.
func (li *LineIndex) Position(offset int, enc Encoding) Position {
	c := LineCursor{li: li, chunk: -1}
	return c.Position(offset, enc)
}

// units counts the characters of text[:to) in enc; invalid bytes count one
// each (editors show each as U+FFFD). A character that `to` splits is not
// counted (the position rounds down).
func units(text string, to int, enc Encoding) int {
	n := 0
	for i := 0; i < to; {
		if i+8 <= to && asciiWord(text, i) { // eight ASCII bytes: eight characters
			n += 8
			i += 8
			continue
		}
		if text[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if i+size > to {
			break
		}
		if enc == UTF16 && r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// asciiWord reports whether text[i:i+8] is ASCII (one load, where the
// compiler merges the byte reads).
func asciiWord(text string, i int) bool {
	w := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
		uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
	return w&0x8080808080808080 == 0
}

// Offset converts a position to a byte offset. A line past the end gives
// len(text); a character past the line's end gives the line end (before
// "\r\n", "\n" or "\r"); a character inside a character (half a surrogate pair)
// rounds down, so a UTF-8 sequence is never split.
func (li *LineIndex) Offset(p Position, enc Encoding) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= li.table().lines {
		return li.text.n
	}
	start := li.LineStart(p.Line)
	line := li.text.slice(start, li.lineEnd(p.Line))
	want := max(0, p.Character)
	n := 0
	i := 0
	for i < len(line) && n < want {
		c := line[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		w := 1
		switch {
		case enc == UTF8:
			w = size
		case enc == UTF16 && r >= 0x10000:
			w = 2
		}
		if n+w > want {
			break
		}
		n += w
		i += size
	}
	return start + i
}

// Range converts a span to an LSP range.
func (d *Document) Range(s Span, enc Encoding) Range {
	return Range{Start: d.Lines.Position(s.Start, enc), End: d.Lines.Position(s.End, enc)}
}

// Span converts an LSP range to a byte span (clamped; a reversed range swapped).
func (d *Document) Span(r Range, enc Encoding) Span {
	s := Span{Start: d.Lines.Offset(r.Start, enc), End: d.Lines.Offset(r.End, enc)}
	if s.End < s.Start {
		// A range that ends before it starts: its ends swapped, as the
		// reference text-document model (vscode-languageserver) reads it,
		// so a client that sends one and chatls agree on the text.
		s.Start, s.End = s.End, s.Start
	}
	return s
}
