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
	if got.Lines.text != got.Text {
		return "line index text differs from document text"
	}
	g, w := *got, *want
	g.Lines, w.Lines = nil, nil
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
