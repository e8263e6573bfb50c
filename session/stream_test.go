package session

import (
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// The marker follows every kind of change: the edit in flight landing
// (installed with its exact span; echoes are matched by content before
// this, TestStreamLandsOnceWhateverTheEcho), the user typing right after
// it, before it, and deleting across it.
func TestStreamMarkerFollowsChanges(t *testing.T) {
	const base = "@You:\nhi\n\n@Assistant:\nHello\n" // marker at the end of "Hello\n"
	at := len(base)
	replace := func(text string, start, end int, with string) string { return text[:start] + with + text[end:] }
	cases := []struct {
		name          string
		inflight      string
		start, oldEnd int
		with          string
		ranged        bool
		want          int
		wantInflight  string
	}{
		{"ours, ranged", "world", at, at, "world", true, at + 5, ""},
		{"the user types right after it", "", at, at, "typed", true, at, ""},
		{"the user types after it while an edit is in flight", "world", at, at, "x", true, at, "world"},
		{"the user types before it", "", 6, 6, "oh ", true, at + 3, ""},
		{"the user deletes across it", "", at - 3, at, "", true, at - 3, ""},
		{"the user types after it, whole text", "", at, at, "zz", false, at, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := chatdoc.Parse(base)
			next := chatdoc.Parse(replace(base, c.start, c.oldEnd, c.with))
			st := &streamState{marker: at, header: 10, inflight: c.inflight, keeper: true}
			var changes []chatdoc.Change
			start, oldEnd, inserted := c.start, c.oldEnd, len(c.with)
			if !c.ranged {
				changes = []chatdoc.Change{{Text: next.Text()}}
				start, oldEnd, inserted = changedRegion(old, next, changes, chatdoc.UTF8)
			}
			st.follow(old, next, c.ranged, start, oldEnd, inserted)
			if st.marker != c.want || st.inflight != c.wantInflight {
				t.Errorf("marker %d inflight %q, want %d %q", st.marker, st.inflight, c.want, c.wantInflight)
			}
		})
	}
}
