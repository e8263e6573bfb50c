package cycle

import (
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// A tool use of an earlier turn without a result is history: no
// placeholder, not counted against a send, hinted as such; the last
// Assistant message's unanswered use is still categorized and blocks.
func TestOrphansOfEarlierTurnsAreHistory(t *testing.T) {
	use := func(id string) string {
		return "**Tool Use:** `bash` (`" + id + "`)\n\n```json\n{\"command\":\"make it\"}\n```\n\n"
	}
	orphanOnly := "@You:\nfirst\n\n@Assistant:\n" + use("old") + "@You:\nnever mind\n\n@Assistant:\nSure.\n\n@You:\nnext\n"
	doc := chatdoc.Parse(orphanOnly)
	l := NewLedger(doc)
	if r := Count(doc, l); !r.Ready || r.Unanswered != 0 {
		t.Errorf("an orphan of an earlier turn blocks: %+v", r)
	}
	if st, _, _ := Categorize(doc, l, Mode{Force: true}, defaults.facts(nil)); len(st) != 0 {
		t.Errorf("an orphan got a placeholder: %v", st)
	}
	var hint string
	for _, d := range new(PartCache).Diagnostics(doc, l, defaults.facts(nil), func(*chatdoc.ToolUse) string { return "" }, t0, nil) {
		if d.ToolID == "old" {
			hint = d.Message
		}
	}
	if hint != MsgOrphanUse {
		t.Errorf("orphan hint %q, want %q", hint, MsgOrphanUse)
	}

	current := "@You:\nfirst\n\n@Assistant:\n" + use("old") + "@You:\nnever mind\n\n@Assistant:\n" + use("new") + "@You:\n"
	doc = chatdoc.Parse(current)
	l = NewLedger(doc)
	if r := Count(doc, l); r.Ready || r.Unanswered != 1 {
		t.Errorf("the last message's unanswered use must block a send: %+v", r)
	}
	st, _, _ := Categorize(doc, l, Mode{Force: true}, defaults.facts(nil))
	if _, ok := st["new"]; !ok || len(st) != 1 {
		t.Errorf("categorized %v, want only the last message's use", st)
	}
}
