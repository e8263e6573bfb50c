package surface

import (
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// A window that ends exactly at the line holding off (a line start that is
// not the text's end) must still give inlineMarkerSpan the whole line.
func TestInlineMarkerSpanAtWindowEnd(t *testing.T) {
	doc := chatdoc.Parse("a\n@You: x\n")
	w := windowAt(doc, 0, 2) // "a\n": ends where line 2 starts
	if got, want := inlineMarkerSpan(&w, 2), (chatdoc.Span{Start: 2, End: 7}); got != want {
		t.Errorf("inlineMarkerSpan = %+v, want %+v (`@You:`)", got, want)
	}
	w = windowAt(doc, 0, 2)
	if got := inlineMarkerSpan(&w, 0); got.Len() != 0 {
		t.Errorf("line 1 has no marker, got %+v", got)
	}
}

// lineEnd stops before "\r\n", also when the window must grow to find it.
func TestTextWindowLineEndCRLF(t *testing.T) {
	text := "```json\r\n{}\r\n```\r\n@You:\r\nhi"
	doc := chatdoc.Parse(text)
	for _, c := range []struct{ off, want int }{
		{0, 7},                     // "```json" without \r
		{9, 11},                    // "{}"
		{len(text) - 1, len(text)}, // the last line has no ending
	} {
		w := windowAt(doc, c.off, c.off)
		if got := w.lineEnd(c.off); got != c.want {
			t.Errorf("lineEnd(%d) = %d, want %d", c.off, got, c.want)
		}
		w = windowAt(doc, 0, 0) // a window of line 1 only: must grow
		if got := w.lineEnd(c.off); got != c.want {
			t.Errorf("grown window: lineEnd(%d) = %d, want %d", c.off, got, c.want)
		}
	}
}
