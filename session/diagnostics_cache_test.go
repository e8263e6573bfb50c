package session

import (
	"runtime"
	"testing"
	"weak"

	"github.com/chatls/chatls/chatdoc"
)

// The diagnostics cache answers for the snapshot it was computed for, and
// does not keep a snapshot alive once nobody else holds it (issue 17: an
// older 10 MB snapshot stayed in memory only as this cache's key).
func TestDiagnosticsCacheDoesNotRetainSnapshots(t *testing.T) {
	ts := newTestSession(t, nil, "")
	ds, _ := ts.open("doc.chat", threePending)
	s, doc := ts.s, ts.s.Latest(ds)
	first := s.Diagnostics(ds, doc, false)
	if again := s.Diagnostics(ds, doc, false); len(first) == 0 || &again[0] != &first[0] {
		t.Fatalf("the same snapshot must be answered from the cache (%d diagnostics)", len(first))
	}

	old := chatdoc.Parse(threePending + "\n@You:\nanother snapshot\n")
	s.Diagnostics(ds, old, false)
	gone := weak.Make(old)
	old = nil
	for i := 0; i < 5 && gone.Value() != nil; i++ {
		runtime.GC()
	}
	if gone.Value() != nil {
		t.Fatal("the diagnostics cache keeps a snapshot nobody else holds alive")
	}
	if again := s.Diagnostics(ds, doc, false); len(again) != len(first) {
		t.Fatalf("after a collected key the diagnostics are computed again: %d, want %d", len(again), len(first))
	}
}
