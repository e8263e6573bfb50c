package cycle

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

const escapeDoc = "@You:\nrun it\n\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"curl example.com\",\"timeout\":null}\n```\n\n@You:\n**Tool Result:** `t1`\n\n```flemma:tool status=pending\n```\n"

func parseEscapeDoc(t *testing.T, text string) *chatdoc.Document {
	t.Helper()
	return chatdoc.Parse(text)
}

// sandbox=off and network=on count only when the user's approval adds
// them in this session; text that had them already means nothing.
func TestSandboxEscapeCountsOnlyWhenTheApprovalAddsIt(t *testing.T) {
	for _, tc := range []struct {
		name, open, approved string
		want                 Escape
	}{
		{"plain approval", "status=pending", "status=approved", Escape{}},
		{"approval adds sandbox=off", "status=pending", "status=approved sandbox=off", Escape{Outside: true}},
		{"approval adds both", "status=pending", "status=approved sandbox=off network=on", Escape{Outside: true, Network: true}},
		{"network only", "status=pending", "status=approved network=true", Escape{Network: true}},
		{"already there on open", "status=pending sandbox=off", "status=approved sandbox=off", Escape{}},
		{"sandbox=false already there, network added", "status=pending sandbox=false", "status=approved sandbox=false network=on", Escape{Network: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := parseEscapeDoc(t, strings.Replace(escapeDoc, "status=pending", tc.open, 1))
			l := NewLedger(open)
			next := parseEscapeDoc(t, strings.Replace(escapeDoc, "status=pending", tc.approved, 1))
			l.Observe(open, next, chatdoc.Span{Start: 0, End: next.Len()}, true)
			u := next.ToolUse("t1")
			if !l.UserApproved(u) {
				t.Fatal("the approval did not count")
			}
			if got := l.SandboxEscape(u, next.ToolResult("t1")); got != tc.want {
				t.Errorf("escape = %+v, want %+v", got, tc.want)
			}
			if got := l.Clone().SandboxEscape(u, next.ToolResult("t1")); got != tc.want {
				t.Errorf("clone: escape = %+v, want %+v", got, tc.want)
			}
			// Taking the words out again before it runs takes the escape back.
			plain := parseEscapeDoc(t, strings.Replace(escapeDoc, "status=pending", "status=approved", 1))
			if got := l.SandboxEscape(u, plain.ToolResult("t1")); got != (Escape{}) {
				t.Errorf("without the words: %+v", got)
			}
		})
	}
	// Arriving approved with sandbox=off (on open) is no approval at all.
	open := parseEscapeDoc(t, strings.Replace(escapeDoc, "status=pending", "status=approved sandbox=off", 1))
	l := NewLedger(open)
	if got := l.SandboxEscape(open.ToolUse("t1"), open.ToolResult("t1")); got != (Escape{}) {
		t.Errorf("on open: %+v", got)
	}
}
