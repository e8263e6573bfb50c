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
// one-line description of a call; now dates running tools.
func Diagnostics(doc *chatdoc.Document, l *Ledger, facts Facts, preview func(*chatdoc.ToolUse) string, now time.Time, keys Keys) []chatdoc.Diagnostic {
	var out []chatdoc.Diagnostic
	// Both walks read the nodes as stored, and place only those they report
	// on: after a keystroke near the top nothing else needs copying.
	doc.EachPart(func(_ chatdoc.PartKey, _, firstUse int, stored []*chatdoc.Message) {
		i := firstUse
		for j, m := range stored {
			for k, u := range m.ToolUses {
				if u.Valid() && !answeredNext(stored, j, k, u.ID) && doc.ToolResultIndex(u.ID) < 0 {
					out = append(out, chatdoc.Diagnostic{Span: doc.ToolUseAt(i).HeaderSpan, Severity: chatdoc.SeverityHint, Code: CodeUnanswered, ToolID: u.ID,
						Message: "tool use without a result: " + keys.Do(KeyAdvance) + " to ask about it"})
				}
				i++
			}
		}
	})
	doc.EachToolResultAsStored(func(i int, r *chatdoc.ToolResult) {
		if !r.IsPlaceholder() || doc.ToolUseIndex(r.ID) < 0 {
			return
		}
		out = append(out, resultDiagnostics(doc, doc.ToolResultAt(i), l, facts, preview, now, keys)...)
	})
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

// answeredNext reports whether the k-th tool use of message j is answered
// where results usually are: the k-th result of the next message. It saves
// the ID lookup for nearly every use of a long conversation; false means
// "look it up".
func answeredNext(msgs []*chatdoc.Message, j, k int, id string) bool {
	if j+1 >= len(msgs) {
		return false
	}
	results := msgs[j+1].ToolResults
	return k < len(results) && results[k].ID == id
}
