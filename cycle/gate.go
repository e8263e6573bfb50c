package cycle

import (
	"strings"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// Why a tool may run: the decision log's source.
const (
	ByRule     = "rule"
	ByUserEdit = "user edit"
)

// Gate is the execution invariant of SPEC §2, checked on the newest
// snapshot at the moment a tool starts — and by Resolve, which uses it to
// choose what to start. A tool runs only when its placeholder is approved
// and empty, its input valid and its ID unique, the policy does not deny it
// (a deny always wins), and either the trusted policy approves this exact
// call or the user approved this ID in this session for this exact input.
// by says which ("rule" or "user edit"); the verdict is the policy's.
func Gate(doc *chatdoc.Document, l *Ledger, id string, facts Facts) (by string, v approval.Verdict, ok bool) {
	r, u := doc.ToolResult(id), doc.ToolUse(id)
	if r == nil || u == nil || r.Status != chatdoc.StatusApproved || strings.TrimSpace(r.Content) != "" || !u.Valid() || DuplicateIDs(doc)[id] {
		return "", approval.Verdict{}, false
	}
	return mayRun(l, u, facts)
}

// mayRun is the gate's rule for a call whose block is approved and empty.
func mayRun(l *Ledger, u *chatdoc.ToolUse, facts Facts) (string, approval.Verdict, bool) {
	v := facts.Decide(u)
	switch {
	case v.Decision == approval.Deny:
		return "", v, false
	case v.Decision == approval.Approve:
		return ByRule, v, true
	case l.UserApproved(u):
		return ByUserEdit, v, true
	}
	return "", v, false
}

// DuplicateIDs are the IDs more than one tool use has. The parser reports
// each later use; none of them gets a placeholder or runs: which call the
// user approved would be ambiguous.
func DuplicateIDs(doc *chatdoc.Document) map[string]bool {
	var dups map[string]bool
	for _, d := range doc.Diagnostics() {
		if d.Code == chatdoc.CodeDuplicateToolID && d.ToolID != "" {
			if dups == nil {
				dups = map[string]bool{}
			}
			dups[d.ToolID] = true
		}
	}
	return dups
}
