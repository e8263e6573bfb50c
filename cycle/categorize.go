package cycle

import (
	"fmt"

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
// message is complete; chatls.advance takes them all.
//
// A call that can never run gets no placeholder but its error result at
// once (SPEC §1: nothing waits on it, and the model learns why): an input
// that does not parse (the diagnostic's text, in invalid), a tool chatls
// does not offer or an input its schema rejects (Facts.Invalid, in
// invalid), and a later use of an ID an earlier tool use has (in reused,
// answered with TextReusedID).
func Categorize(doc *chatdoc.Document, l *Ledger, mode Mode, facts Facts) (statuses map[string]chatdoc.Status, invalid map[string]string, reused []*chatdoc.ToolUse) {
	statuses, invalid = map[string]chatdoc.Status{}, map[string]string{}
	// later: each unanswered later use of an ID, with its place (from 1)
	// among the uses of its ID.
	later := map[chatdoc.Span]int{}
	if open := ReusedIDs(doc); len(open) > 0 {
		ids := map[string]bool{}
		for _, u := range open {
			later[u.HeaderSpan], ids[u.ID] = 0, true
		}
		n := map[string]int{}
		for _, u := range doc.ToolUses() {
			if ids[u.ID] {
				n[u.ID]++
				if _, ok := later[u.HeaderSpan]; ok {
					later[u.HeaderSpan] = n[u.ID]
				}
			}
		}
	}
	last := lastAssistant(doc)
	for i, m := range doc.Messages() {
		// Only the last Assistant message: earlier turns are history (history.go).
		if i != last || len(m.ToolUses) == 0 {
			continue
		}
		if !mode.Force && !(mode.Autopilot && MessageComplete(doc, i)) {
			continue
		}
		for _, u := range m.ToolUses {
			if n, ok := later[u.HeaderSpan]; ok {
				if mode.Force || l.arrived(u, n) {
					reused = append(reused, u)
				}
				continue
			}
			if doc.ToolResult(u.ID) != nil || laterUse(doc, u) {
				continue
			}
			if !mode.Force && l.openIDs.Has(u.ID) {
				continue // tool uses already in the file wait for chatls.advance
			}
			if m.Abort() != nil {
				statuses[u.ID] = chatdoc.StatusAborted
				continue
			}
			if !u.Valid() {
				invalid[u.ID] = u.InputProblem()
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
	return statuses, invalid, reused
}

// MessageComplete says whether autopilot may categorize an Assistant
// message: all its tool-use fences closed, and a later role marker. A
// closed fence whose JSON does not parse, or a header with no fence before
// the next marker, is final: its call gets its error result.
func MessageComplete(doc *chatdoc.Document, index int) bool {
	m := doc.Message(index)
	for _, u := range m.ToolUses {
		if u.Fence != nil && !u.Fence.Closed() {
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
// The calls in invalid get their error result instead of a placeholder,
// and so do the later uses of an ID in reused (TextReusedID, after their
// own message).
func PlaceholderEdits(doc *chatdoc.Document, statuses map[string]chatdoc.Status, invalid map[string]string, reused []*chatdoc.ToolUse, dialect chatdoc.Dialect) ([]chatdoc.TextEdit, error) {
	var edits []chatdoc.TextEdit
	answer := map[chatdoc.Span]bool{}
	for _, u := range reused {
		answer[u.HeaderSpan] = true
	}
	open := map[chatdoc.Span]bool{}
	for _, u := range ReusedIDs(doc) {
		open[u.HeaderSpan] = true
	}
	for _, m := range doc.Messages() {
		var reqs []chatdoc.PlaceholderRequest
		for _, u := range m.ToolUses {
			if laterUse(doc, u) {
				if answer[u.HeaderSpan] && open[u.HeaderSpan] {
					reqs = append(reqs, chatdoc.PlaceholderRequest{ID: u.ID, Use: u,
						Result: &chatdoc.ResultText{Content: fmt.Sprintf(TextReusedID, u.ID), IsError: true}})
				}
				continue
			}
			if doc.ToolResult(u.ID) != nil {
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
