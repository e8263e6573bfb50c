package cycle

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

func TestApprovedAwayCountsOnlyWhatChatlsIssuedForThisInput(t *testing.T) {
	doc := func(header string) *chatdoc.Document {
		return chatdoc.Parse("@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\n@You:\n\n**Tool Result:** `t1`\n\n```flemma:tool " + header + "\n```\n")
	}
	issuedFor := doc("status=pending")
	hash := InputHash(issuedFor.ToolUse("t1"))
	for _, c := range []struct {
		name, header string
		issued       map[string]string
		approved     bool
		escape       Escape
	}{
		{"issued for this input", "status=approved", map[string]string{"t1": hash}, true, Escape{}},
		{"never issued", "status=approved", nil, false, Escape{}},
		{"issued for another input", "status=approved", map[string]string{"t1": "other"}, false, Escape{}},
		{"still pending", "status=pending", map[string]string{"t1": hash}, false, Escape{}},
		{"typed sandbox=off counts as the user's", "status=approved sandbox=off", map[string]string{"t1": hash}, true, Escape{Outside: true}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			d := doc(c.header)
			l := NewLedger(d)
			l.ApprovedAway(d, func(id string) (string, bool) { h, ok := c.issued[id]; return h, ok })
			u := d.ToolUse("t1")
			if got := l.UserApproved(u); got != c.approved {
				t.Errorf("UserApproved = %v, want %v", got, c.approved)
			}
			if c.approved {
				if got := l.SandboxEscape(u, d.ToolResult("t1")); got != c.escape {
					t.Errorf("escape = %+v, want %+v", got, c.escape)
				}
			}
		})
	}
}
