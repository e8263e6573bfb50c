package chatdoc

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Line 0: "a😀b\r\n" (emoji = 4 bytes, 2 UTF-16 units); line 1: CJK, é, a
// combining acute, an invalid byte; line 2 has no final newline.
const posText = "a😀b\r\n日本é\u0301x\xff\nlast"

func TestPosition(t *testing.T) {
	li := NewLineIndex(posText)
	if li.LineCount() != 3 || li.LineStart(1) != 8 || li.LineStart(2) != 21 || li.LineStart(9) != len(posText) {
		t.Fatalf("lines %d starts %d %d", li.LineCount(), li.LineStart(1), li.LineStart(2))
	}
	tests := []struct {
		offset             int
		utf16, utf8, utf32 Position
	}{
		{0, Position{0, 0}, Position{0, 0}, Position{0, 0}},
		{1, Position{0, 1}, Position{0, 1}, Position{0, 1}},
		{2, Position{0, 1}, Position{0, 2}, Position{0, 1}}, // inside the emoji: rounds down
		{5, Position{0, 3}, Position{0, 5}, Position{0, 2}},
		{6, Position{0, 4}, Position{0, 6}, Position{0, 3}},
		{8, Position{1, 0}, Position{1, 0}, Position{1, 0}},
		{11, Position{1, 1}, Position{1, 3}, Position{1, 1}},
		{18, Position{1, 4}, Position{1, 10}, Position{1, 4}}, // é and U+0301 count separately
		{20, Position{1, 6}, Position{1, 12}, Position{1, 6}}, // the invalid byte counts one
		{25, Position{2, 4}, Position{2, 4}, Position{2, 4}},
		{999, Position{2, 4}, Position{2, 4}, Position{2, 4}},
		{-3, Position{0, 0}, Position{0, 0}, Position{0, 0}},
	}
	for _, tt := range tests {
		for enc, want := range map[Encoding]Position{UTF16: tt.utf16, UTF8: tt.utf8, UTF32: tt.utf32} {
			if got := li.Position(tt.offset, enc); got != want {
				t.Errorf("Position(%d, %d) = %v, want %v", tt.offset, enc, got, want)
			}
		}
	}
}

func TestOffset(t *testing.T) {
	li := NewLineIndex(posText)
	tests := []struct {
		pos  Position
		enc  Encoding
		want int
	}{
		{Position{0, 2}, UTF16, 1},   // half a surrogate pair rounds down
		{Position{0, 3}, UTF16, 5},   // after the emoji
		{Position{0, 2}, UTF8, 1},    // never splits a UTF-8 sequence
		{Position{0, 2}, UTF32, 5},   // the emoji is one UTF-32 unit
		{Position{0, 100}, UTF16, 6}, // past the end: before \r\n
		{Position{1, 100}, UTF16, 20},
		{Position{1, 6}, UTF16, 20},
		{Position{1, 3}, UTF8, 11},
		{Position{2, 2}, UTF32, 23},
		{Position{2, 100}, UTF8, 25}, // last line without newline
		{Position{7, 0}, UTF16, 25},  // line past the end
		{Position{-1, 4}, UTF16, 0},
		{Position{1, -4}, UTF16, 8},
	}
	for _, tt := range tests {
		if got := li.Offset(tt.pos, tt.enc); got != tt.want {
			t.Errorf("Offset(%v, %d) = %d, want %d", tt.pos, tt.enc, got, tt.want)
		}
	}
}

// Every offset at a character boundary (and not between \r and \n)
// survives a round trip in every encoding.
func TestPositionRoundTrip(t *testing.T) {
	for _, text := range []string{posText, "", "\n", "x", "\r\n\r\n", strings.Repeat("é😀\n", 5), "日本\n\xe6\x97"} {
		li := NewLineIndex(text)
		for off := 0; off <= len(text); off++ {
			if off < len(text) && !utf8.RuneStart(text[off]) || off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n' {
				continue
			}
			if off > 0 && !utf8.FullRuneInString(text[strings.LastIndexFunc(text[:off], func(r rune) bool { return true }):off]) {
				continue // inside a truncated sequence
			}
			for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
				if got := li.Offset(li.Position(off, enc), enc); got != off {
					t.Errorf("%q: offset %d -> %v -> %d (enc %d)", text, off, li.Position(off, enc), got, enc)
				}
			}
		}
	}
}

func TestDocumentRangeAndSpan(t *testing.T) {
	d := Parse(posText)
	r := d.Range(Span{1, 5}, UTF16)
	if r != (Range{Position{0, 1}, Position{0, 3}}) {
		t.Fatalf("range %v", r)
	}
	if s := d.Span(r, UTF16); s != (Span{1, 5}) {
		t.Fatalf("span %v", s)
	}
	if s := d.Span(Range{Position{2, 3}, Position{0, 0}}, UTF16); s.End < s.Start {
		t.Fatalf("inverted span %v", s)
	}
}

// The chunked index, updated edit by edit, matches a fresh index, across
// chunk boundaries and for edits that add or remove many lines.
func TestLineIndexReplace(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	text := strings.Repeat("line\n", 3*lineChunkSize)
	li := NewLineIndex(text)
	pt := li.text
	for i := range 600 {
		start := r.Intn(len(text) + 1)
		end := min(len(text), start+r.Intn(3*lineChunkSize))
		if r.Intn(3) == 0 {
			end = min(len(text), start+r.Intn(4))
		}
		ins := strings.Repeat("ab\n", r.Intn(700))
		if r.Intn(2) == 0 {
			ins = ins[:len(ins)/2]
		}
		text = text[:start] + ins + text[end:]
		pt = pt.replace(start, end, ins)
		if pt.String() != text || pt.n != len(text) {
			t.Fatalf("step %d: piece text differs", i)
		}
		li = li.replace(start, end, pt)
		if want := lineStarts(NewLineIndex(text)); !slices.Equal(lineStarts(li), want) {
			t.Fatalf("step %d: line starts differ", i)
		}
		if len(text) > 60000 {
			text = text[:1000]
			li = NewLineIndex(text)
			pt = li.text
		}
	}
}
