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

// DuplicateIDs are the IDs still ambiguous: more than one tool use has
// them and a later use is not answered yet. The first use of an ID is the
// call; every later use is answered with TextReusedID in the @You: after
// its own message (ReusedIDs, written by phase 1), never with the earlier
// call's result — results are located by ID, and the first result with an
// ID is then the first use's. Until then none of them runs: which call the
// user approved would be ambiguous.
func DuplicateIDs(doc *chatdoc.Document) map[string]bool {
	var dups map[string]bool
	for _, u := range ReusedIDs(doc) {
		if dups == nil {
			dups = map[string]bool{}
		}
		dups[u.ID] = true
	}
	return dups
}

// ReusedIDs are the later uses of an ID (the parser's duplicate-ID
// findings) that have no answer of their own yet, in document order.
func ReusedIDs(doc *chatdoc.Document) []*chatdoc.ToolUse {
	var reused map[string]bool
	for _, d := range doc.Diagnostics() {
		if d.Code == chatdoc.CodeDuplicateToolID && d.ToolID != "" {
			if reused == nil {
				reused = map[string]bool{}
			}
			reused[d.ToolID] = true
		}
	}
	if reused == nil {
		return nil
	}
	var out []*chatdoc.ToolUse
	for i, m := range doc.Messages() {
		for _, u := range m.ToolUses {
			if reused[u.ID] && laterUse(doc, u) && !answeredHere(doc, i, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// laterUse says whether an earlier tool use has u's ID.
func laterUse(doc *chatdoc.Document, u *chatdoc.ToolUse) bool {
	first := doc.ToolUse(u.ID)
	return first != nil && first.HeaderSpan != u.HeaderSpan
}

// answeredHere says whether the later use u of message index has its own
// answer: the @You: message after it holds as many results with u's ID as
// its own message has uses of that ID up to u.
func answeredHere(doc *chatdoc.Document, index int, u *chatdoc.ToolUse) bool {
	uses := 0
	for _, mu := range doc.Message(index).ToolUses {
		if mu.ID == u.ID {
			uses++
		}
		if mu.HeaderSpan == u.HeaderSpan {
			break
		}
	}
	if index+1 >= doc.MessageCount() || doc.Message(index+1).Role != "You" {
		return false
	}
	results := 0
	for _, r := range doc.Message(index + 1).ToolResults {
		if r.ID == u.ID {
			results++
		}
	}
	return results >= uses
}
