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
