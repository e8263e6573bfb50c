package chatdoc

import (
	"math/rand"
	"strings"
	"sync"
	"testing"
)

// Slice and Len agree with Text on updated snapshots of many pieces.
func TestSliceMatchesText(t *testing.T) {
	d := Parse(strings.Repeat("@You:\nsome words on a line\n", 5000))
	r := rand.New(rand.NewSource(2))
	for range 50 {
		at := r.Intn(d.Len() + 1)
		d = d.Replace(Span{at, min(d.Len(), at+r.Intn(3))}, "é\n")
	}
	text := d.Text()
	if d.Len() != len(text) || len(d.text.pieces) < 4 {
		t.Fatalf("len %d vs %d, %d pieces", d.Len(), len(text), len(d.text.pieces))
	}
	for range 2000 {
		a := r.Intn(len(text) + 1)
		b := min(len(text), a+r.Intn(3*pieceTarget))
		if got := d.Slice(a, b); got != text[a:b] {
			t.Fatalf("Slice(%d, %d) differs", a, b)
		}
	}
	if d.Slice(-5, 3) != text[:3] || d.Slice(len(text)-2, len(text)+9) != text[len(text)-2:] || d.Slice(9, 4) != "" {
		t.Fatal("Slice does not clamp")
	}
}

// Text is joined once, safely from many goroutines (run with -race).
func TestTextConcurrent(t *testing.T) {
	d := Parse(strings.Repeat("@You:\nhello\n", 10000))
	d = d.Replace(Span{d.Len() / 2, d.Len() / 2}, "x")
	want := d.text.String()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if d.Text() != want {
				t.Error("Text differs")
			}
		})
	}
	wg.Wait()
}

// SameText agrees with comparing the texts, for snapshots that share
// pieces and for ones that share none.
func TestSameTextAgreesWithTheTexts(t *testing.T) {
	old := pieceTarget
	pieceTarget, pieceMax, pieceMin = 8, 16, 2
	t.Cleanup(func() { pieceTarget, pieceMax, pieceMin = old, 2*old, old/4 })
	base := Parse(strings.Repeat("@You:\nsome words here\n\n@Assistant:\nan answer\n\n", 20))
	edited := base.Replace(Span{Start: 100, End: 100}, "xyz")
	again := edited.Replace(Span{Start: 100, End: 103}, "")
	cases := []struct {
		a, b *Document
	}{
		{base, base}, {base, edited}, {base, again}, {edited, Parse(edited.Text())},
		{again, Parse(base.Text())}, {edited, edited.Replace(Span{Start: 5, End: 6}, "Y")},
		{Parse(""), Parse("")}, {Parse(""), Parse("a")},
	}
	for i, c := range cases {
		if got, want := SameText(c.a, c.b), c.a.Text() == c.b.Text(); got != want {
			t.Errorf("case %d: SameText = %v, texts equal = %v", i, got, want)
		}
	}
}
