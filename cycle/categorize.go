package cycle

import (
	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// Mode says who runs a pass of the cycle.
type Mode struct {
	// Force is chatls.advance (the user's "next step"): it also categorizes
	// tool uses that were in the file when it opened and resolves blocks
	// autopilot leaves to the user. Without it the pass is autopilot's.
	Force bool
	// Autopilot is the document's autopilot setting.
	Autopilot bool
}

// Categorize decides the placeholders phase 1 inserts (SPEC §2): every
// valid tool use without a result gets the status the policy gives —
// approved, pending or denied — or aborted in an aborted message. Autopilot
// only takes tool uses that arrived in this session, once their Assistant
// message is complete; chatls.advance takes them all. Duplicated IDs get
// nothing (they keep their diagnostic).
//
// Calls whose input the tool's schema rejects get no placeholder: their
// error result, in invalid, is written at once (Facts.Invalid).
func Categorize(doc *chatdoc.Document, l *Ledger, mode Mode, facts Facts) (statuses map[string]chatdoc.Status, invalid map[string]string) {
	dups := DuplicateIDs(doc)
	statuses, invalid = map[string]chatdoc.Status{}, map[string]string{}
	for i, m := range doc.Messages() {
		if m.Role != "Assistant" || len(m.ToolUses) == 0 {
			continue
		}
		if !mode.Force && !(mode.Autopilot && MessageComplete(doc, i)) {
			continue
		}
		for _, u := range m.ToolUses {
			if !u.Valid() || doc.ToolResult(u.ID) != nil || dups[u.ID] {
				continue
			}
			if !mode.Force && l.openIDs.Has(u.ID) {
				continue // tool uses already in the file wait for chatls.advance
			}
			if m.Abort() != nil {
				statuses[u.ID] = chatdoc.StatusAborted
				continue
			}
			if facts.Invalid != nil {
				if text := facts.Invalid(u); text != "" {
					invalid[u.ID] = text
					continue
				}
			}
			switch facts.Decide(u).Decision {
			case approval.Approve:
				statuses[u.ID] = chatdoc.StatusApproved
			case approval.Deny:
				statuses[u.ID] = chatdoc.StatusDenied
			default:
				statuses[u.ID] = chatdoc.StatusPending
			}
		}
	}
	return statuses, invalid
}

// MessageComplete says whether autopilot may categorize an Assistant
// message: all its tool-use fences closed and valid, and a later role marker.
func MessageComplete(doc *chatdoc.Document, index int) bool {
	m := doc.Message(index)
	for _, u := range m.ToolUses {
		if !u.Valid() || u.Fence == nil || !u.Fence.Closed() {
			return false
		}
	}
	return index+1 < doc.MessageCount()
}

// PlaceholderEdits builds the insertions for every tool use in statuses
// that is still unanswered in doc, grouped by Assistant message. An ID that
// became duplicated since categorizing gets none: one placeholder per ID.
// Like every edit builder of the cycle it is idempotent: once the
// placeholders are in, it returns nothing.
//
// The calls in invalid get their error result instead of a placeholder.
func PlaceholderEdits(doc *chatdoc.Document, statuses map[string]chatdoc.Status, invalid map[string]string, dialect chatdoc.Dialect) ([]chatdoc.TextEdit, error) {
	var edits []chatdoc.TextEdit
	dups := DuplicateIDs(doc)
	for _, m := range doc.Messages() {
		var reqs []chatdoc.PlaceholderRequest
		for _, u := range m.ToolUses {
			if doc.ToolResult(u.ID) != nil || dups[u.ID] {
				continue
			}
			if st, ok := statuses[u.ID]; ok {
				reqs = append(reqs, chatdoc.PlaceholderRequest{ID: u.ID, Status: st})
			} else if text, ok := invalid[u.ID]; ok {
				reqs = append(reqs, chatdoc.PlaceholderRequest{ID: u.ID, Result: &chatdoc.ResultText{Content: text, IsError: true}})
			}
		}
		if len(reqs) == 0 {
			continue
		}
		e, err := chatdoc.InsertPlaceholders(doc, reqs, dialect)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	return edits, nil
}
