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
	// So may the chunk layout of the messages: compare what they hold.
	for _, part := range []struct {
		name      string
		got, want any
	}{
		{"messages", got.Messages(), want.Messages()},
		{"tool uses", got.ToolUses(), want.ToolUses()},
		{"tool results", got.ToolResults(), want.ToolResults()},
		{"diagnostics", got.Diagnostics(), want.Diagnostics()},
	} {
		if !reflect.DeepEqual(part.got, part.want) {
			return part.name + " (-want +got):\n" + cmp.Diff(part.want, part.got, cmp.Exporter(func(reflect.Type) bool { return true }))
		}
	}
	if got.MessageCount() != len(want.Messages()) {
		return fmt.Sprintf("MessageCount %d, want %d", got.MessageCount(), len(want.Messages()))
	}
	for i, m := range want.Messages() {
		if got.MessageSpan(i) != m.Span || !reflect.DeepEqual(got.Message(i), m) || got.MessageIndexAt(m.Span.Start) != i {
			return fmt.Sprintf("message %d differs through MessageSpan, Message or MessageIndexAt", i)
		}
	}
	for i, u := range want.ToolUses() {
		if !reflect.DeepEqual(got.store.toolUse(i), u) {
			return fmt.Sprintf("tool use %d differs through the store's lookup", i)
		}
	}
	for i, r := range want.ToolResults() {
		if !reflect.DeepEqual(got.store.toolResult(i), r) {
			return fmt.Sprintf("tool result %d differs through the store's lookup", i)
		}
	}
	if diff := storedWalkDiff(got, want); diff != "" {
		return diff
	}
	g, w := *got, *want
	g.store, w.store = nil, nil
	g.Lines, w.Lines = nil, nil
	g.text, w.text, g.joined, w.joined = nil, nil, nil, nil
	opts := []cmp.Option{cmp.Exporter(func(reflect.Type) bool { return true })}
	if reflect.DeepEqual(g, w) || cmp.Equal(w, g, opts...) {
		return ""
	}
	diff := cmp.Diff(w, g, opts...)
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
	saved := [5]int{pieceTarget, pieceMax, pieceMin, windowSlack, chunkSize}
	defer func() {
		pieceTarget, pieceMax, pieceMin, windowSlack, chunkSize = saved[0], saved[1], saved[2], saved[3], saved[4]
	}()
	pieceTarget, pieceMax, pieceMin, windowSlack, chunkSize = 8, 16, 2, 1, 2
	f()
}

// storedWalkDiff checks the parts as stored (EachPart): each part's first
// tool use and result index, its messages moved by its delta to where want
// has them, and every position-free field of their tool uses and results as
// in want's placed nodes.
func storedWalkDiff(got, want *Document) string {
	msgs, uses, results := want.Messages(), want.ToolUses(), want.ToolResults()
	if got.store.nUses != len(uses) || got.store.nResults != len(results) {
		return fmt.Sprintf("counts %d/%d, want %d/%d", got.store.nUses, got.store.nResults, len(uses), len(results))
	}
	var diff string
	k, n, r := 0, 0, 0
	got.EachPart(func(p Part) {
		if p.FirstUse != n || p.FirstResult != r {
			diff = fmt.Sprintf("part at message %d starts at use %d, result %d; want %d, %d", k, p.FirstUse, p.FirstResult, n, r)
		}
		for _, m := range p.Stored {
			if k >= len(msgs) || m.Span.Shift(p.Delta) != msgs[k].Span {
				diff = fmt.Sprintf("stored message %d moved by %d is not where want has it", k, p.Delta)
				return
			}
			k++
			for _, u := range m.ToolUses {
				w := uses[n]
				if u.ID != w.ID || u.Name != w.Name || u.RawInput != w.RawInput || u.InputError != w.InputError ||
					u.Valid() != w.Valid() || !reflect.DeepEqual(u.Input(), w.Input()) || got.ToolUseIndex(u.ID) != want.ToolUseIndex(w.ID) {
					diff = fmt.Sprintf("stored tool use %d (%s) differs from the placed one", n, u.ID)
				}
				n++
			}
			for _, res := range m.ToolResults {
				w := results[r]
				if res.ID != w.ID || res.Status != w.Status || res.Dialect != w.Dialect || res.Content != w.Content ||
					!reflect.DeepEqual(res.Extra(), w.Extra()) || got.ToolResultIndex(res.ID) != want.ToolResultIndex(w.ID) {
					diff = fmt.Sprintf("stored tool result %d (%s) differs from the placed one", r, res.ID)
				}
				r++
			}
		}
	})
	if diff != "" || k != len(msgs) || n != len(uses) || r != len(results) {
		return diff + fmt.Sprintf(" (walked %d of %d messages, %d of %d tool uses, %d of %d results)", k, len(msgs), n, len(uses), r, len(results))
	}
	return ""
}
