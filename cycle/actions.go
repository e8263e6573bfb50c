package cycle

import (
	"strings"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// Action is something the user can do about one call (SPEC §3 "Code
// actions"); the server turns each into an edit or a command.
type Action int

const (
	// ActCancel stops the running tool.
	ActCancel Action = iota
	// ActInsert categorizes the unanswered tool uses (chatls.advance).
	ActInsert
	// ActApprove changes an empty pending block to approved.
	ActApprove
	// ActRunNow runs an approved block that passes the gate (chatls.run).
	ActRunNow
	// ActAskAgain sets an approved block whose approval does not count back
	// to pending, so the user can approve it again.
	ActAskAgain
	// ActReject changes a pending or approved block to rejected.
	ActReject
	// ActAlwaysAllow writes a rule that approves calls like this one.
	ActAlwaysAllow
	// ActApproveOutside approves a pending bash call with sandbox=off, and
	// ActApproveOutsideNetwork with sandbox=off network=on (SPEC §5).
	ActApproveOutside
	ActApproveOutsideNetwork
)

// ActionsFor lists what the user can do about the call u (with its result
// block r, nil when it has none), in the order a menu shows them.
func ActionsFor(doc *chatdoc.Document, l *Ledger, r *chatdoc.ToolResult, u *chatdoc.ToolUse, facts Facts) []Action {
	dups := DuplicateIDs(doc)
	if run, ok := l.Run(u.ID); ok && run.Phase != Writing {
		return []Action{ActCancel}
	}
	if r == nil {
		if u.Valid() && !dups[u.ID] {
			return []Action{ActInsert}
		}
		return nil
	}
	if !r.IsPlaceholder() || !Actionable(doc, dups, r) {
		return nil
	}
	var out []Action
	empty := strings.TrimSpace(r.Content) == ""
	switch {
	case r.Status == chatdoc.StatusPending && empty:
		// Approving counts only from pending, for an empty block (a filled
		// one becomes the user's result and never runs).
		out = append(out, ActApprove)
		if u.Name == "bash" {
			out = append(out, ActApproveOutside, ActApproveOutsideNetwork)
		}
	case r.Status == chatdoc.StatusApproved && empty:
		if _, _, ok := mayRun(l, u, facts); ok {
			out = append(out, ActRunNow)
		} else {
			out = append(out, ActAskAgain)
		}
	}
	return append(out, ActReject, ActAlwaysAllow)
}

// Actionable says whether approving or rejecting the placeholder r can take
// effect: it is the first result for a valid tool use whose ID no other
// tool use shares, and it is pending or approved. Denied, rejected and
// aborted blocks only wait for their fixed result.
func Actionable(doc *chatdoc.Document, dups map[string]bool, r *chatdoc.ToolResult) bool {
	u := doc.ToolUse(r.ID)
	if u == nil || !u.Valid() || doc.ToolResult(r.ID) != r || dups[r.ID] {
		return false
	}
	return r.Status == chatdoc.StatusPending || r.Status == chatdoc.StatusApproved
}

// OpenPending are the empty pending placeholders an approval can take
// effect on, in document order ("Approve all N pending").
func OpenPending(doc *chatdoc.Document) []*chatdoc.ToolResult {
	dups := DuplicateIDs(doc)
	var out []*chatdoc.ToolResult
	for _, r := range doc.ToolResults() {
		if r.Status == chatdoc.StatusPending && strings.TrimSpace(r.Content) == "" && Actionable(doc, dups, r) {
			out = append(out, r)
		}
	}
	return out
}

// NowApproved are the empty pending placeholders whose calls the policy
// approves now (a rule was just added): they become approved and run.
func NowApproved(doc *chatdoc.Document, facts Facts) map[string]bool {
	now := map[string]bool{}
	for _, r := range OpenPending(doc) {
		if facts.Decide(doc.ToolUse(r.ID)).Decision == approval.Approve {
			now[r.ID] = true
		}
	}
	return now
}
