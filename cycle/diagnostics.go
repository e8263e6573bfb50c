package cycle

import (
	"fmt"
	"strings"
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// Diagnostics describe the cycle's state of each block (SPEC §3): tool
// uses without a result (hint), pending approvals (information — a status
// line in editors without progress UI), approvals that don't count,
// running tools, and tools the journal says already ran. preview is the
// one-line description of a call; now dates running tools. Nodes are
// placed only when reported on: after a keystroke near the top nothing
// else needs copying.
func (c *PartCache) Diagnostics(doc *chatdoc.Document, l *Ledger, facts Facts, preview func(*chatdoc.ToolUse) string, now time.Time, keys Keys) []chatdoc.Diagnostic {
	var out []chatdoc.Diagnostic
	uses, placeholders := c.candidates(doc)
	var current map[chatdoc.Span]bool
	for _, u := range uses {
		if doc.ToolResultIndex(u.id) < 0 {
			if current == nil {
				current = currentUses(doc)
			}
			span := doc.ToolUseAt(u.index).HeaderSpan
			msg := "tool use without a result: " + keys.Do(KeyAdvance) + " to ask about it"
			if !current[span] {
				msg = MsgOrphanUse // history: nothing asks about it
			}
			out = append(out, chatdoc.Diagnostic{Span: span, Severity: chatdoc.SeverityHint, Code: CodeUnanswered, ToolID: u.id, Message: msg})
		}
	}
	for _, r := range placeholders {
		if doc.ToolUseIndex(r.id) >= 0 {
			out = append(out, resultDiagnostics(doc, doc.ToolResultAt(r.index), l, facts, preview, now, keys)...)
		}
	}
	return out
}

// resultDiagnostics is what Diagnostics says about placeholder r.
func resultDiagnostics(doc *chatdoc.Document, r *chatdoc.ToolResult, l *Ledger, facts Facts, preview func(*chatdoc.ToolUse) string, now time.Time, keys Keys) []chatdoc.Diagnostic {
	var out []chatdoc.Diagnostic
	u := doc.ToolUse(r.ID)
	run, busy := l.Run(r.ID)
	running := busy && run.Phase != Writing
	empty := strings.TrimSpace(r.Content) == ""
	waiting := empty && (r.Status == chatdoc.StatusPending || r.Status == chatdoc.StatusApproved)
	at := func(sev chatdoc.Severity, code, msg string) {
		out = append(out, chatdoc.Diagnostic{Span: r.HeaderSpan, Severity: sev, Code: code, ToolID: r.ID, Message: msg})
	}
	switch {
	case !busy && waiting && facts.AlreadyRan(r.ID):
		// Approving it again would not run it: the journal says it ran.
		at(chatdoc.SeverityInformation, CodeAlreadyRan, fmt.Sprintf(MsgAlreadyRan, keys.Do(KeyAdvance)))
	case running:
		at(chatdoc.SeverityInformation, CodeRunning, fmt.Sprintf("running %s (%s)", u.Name, now.Sub(run.Started).Round(time.Second)))
	case r.Status == chatdoc.StatusPending && empty:
		at(chatdoc.SeverityInformation, CodePending, "approval pending: "+preview(u))
	case r.Status == chatdoc.StatusApproved && empty && l.Revoked(r.ID):
		at(chatdoc.SeverityWarning, CodeRevoked, MsgRevoked)
	case r.Status == chatdoc.StatusApproved && empty && !l.UserApproved(u):
		if facts.Decide(u).Decision != approval.Approve {
			at(chatdoc.SeverityWarning, CodeApprovedOld, MsgApprovedBefore)
		}
	}
	return out
}
