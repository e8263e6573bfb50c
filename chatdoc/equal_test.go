package chatdoc

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lineStarts lists every line start: the observable content of a LineIndex,
// whose chunk layout may differ between an updated and a fresh index.
func lineStarts(li *LineIndex) []int {
	out := make([]int, li.LineCount())
	for i := range out {
		out[i] = li.LineStart(i)
	}
	return out
}

// docDiff compares two snapshots field by field (including unexported
// state, so the next incremental step starts from equal state) and returns ""
// when equal.
func docDiff(got, want *Document) string {
	if diff := cmp.Diff(lineStarts(want.Lines), lineStarts(got.Lines)); diff != "" {
		return "line starts (-want +got):\n" + diff
	}
	if got.Lines.text != got.text {
		return "line index text differs from document text"
	}
	if got.Text() != want.Text() || got.Len() != len(want.Text()) || got.text.String() != want.Text() {
		return fmt.Sprintf("text differs:\nwant %q\ngot  %q", want.Text(), got.Text())
	}
	// Piece layout, like chunk layout, may differ between an updated and a
	// fresh snapshot; the text is compared above.
	g, w := *got, *want
	g.Lines, w.Lines = nil, nil
	g.text, w.text, g.joined, w.joined = nil, nil, nil, nil
	if reflect.DeepEqual(g, w) {
		return ""
	}
	diff := cmp.Diff(w, g, cmp.Exporter(func(reflect.Type) bool { return true }))
	if diff == "" {
		diff = fmt.Sprintf("documents differ (pointer structure?)")
	}
	return "document (-want +got):\n" + diff
}

func assertSameDoc(t *testing.T, got, want *Document) {
	t.Helper()
	if diff := docDiff(got, want); diff != "" {
		t.Fatal(diff)
	}
}

// withTinyPieces makes text pieces and reparse windows a few bytes long, so
// that small test documents exercise lines and messages spanning pieces
// and windows that grow. Not for parallel tests.
func withTinyPieces(f func()) {
	saved := [4]int{pieceTarget, pieceMax, pieceMin, windowSlack}
	defer func() { pieceTarget, pieceMax, pieceMin, windowSlack = saved[0], saved[1], saved[2], saved[3] }()
	pieceTarget, pieceMax, pieceMin, windowSlack = 8, 16, 2, 1
	f()
}
