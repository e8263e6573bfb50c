package chatdoc

import (
	"sync"
	"testing"
)

// Parse leaves the line starts for the first conversion (chatls check
// converts none when a document has no findings).
func TestParseLeavesLineStartsForFirstUse(t *testing.T) {
	for name, text := range corpusTexts(t) {
		doc := Parse(text)
		if doc.Lines.tab.chunks != nil {
			t.Fatalf("%s: Parse found the line starts", name)
		}
		if doc.Lines.LineCount(); doc.Lines.tab.chunks == nil {
			t.Fatalf("%s: the first conversion found no line starts", name)
		}
	}
}

// Snapshots are read from several goroutines at once (requests run
// concurrently): the first conversions race to find the line starts.
func TestLineIndexFirstUseFromManyGoroutines(t *testing.T) {
	text := bench10MB()[:300_000]
	want := NewLineIndex(text).Position(len(text)-1, UTF16)
	doc := Parse(text)
	var wg sync.WaitGroup
	got := make([]Position, 8)
	for g := range got {
		wg.Go(func() { got[g] = doc.Lines.Position(len(text)-1, UTF16) })
	}
	wg.Wait()
	for g, p := range got {
		if p != want {
			t.Fatalf("goroutine %d: %v, want %v", g, p, want)
		}
	}
}
