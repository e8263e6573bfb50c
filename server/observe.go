package server

import (
	"sort"

	"github.com/chatls/chatls/chatdoc"
)

// changedSpan is a conservative byte range of the new snapshot that a batch
// of changes touched; the whole document when it can't be narrowed cheaply.
func changedSpan(old, next *chatdoc.Document, changes []chatdoc.Change, enc chatdoc.Encoding) chatdoc.Span {
	whole := chatdoc.Span{Start: 0, End: next.Len()}
	if len(changes) != 1 || changes[0].Range == nil {
		return whole
	}
	start := old.Lines.Offset(changes[0].Range.Start, enc)
	return chatdoc.Span{Start: start, End: start + len(changes[0].Text)}
}

// messagesIn returns the messages of doc that overlap span (touching counts).
func messagesIn(doc *chatdoc.Document, span chatdoc.Span) []*chatdoc.Message {
	msgs := doc.Messages
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].Span.End >= span.Start })
	j := i
	for j < len(msgs) && msgs[j].Span.Start <= span.End {
		j++
	}
	return msgs[i:j]
}

// observeUserEdits records what a client edit means for the cycle: a pending
// placeholder turned approved (the user's approval, SPEC §2), a rejection,
// an input edit that revokes an approval, or a new tool use for autopilot.
// It runs under Server.mu and only looks at the messages the edit touched, so
// a keystroke in a large document stays cheap. It reports whether the cycle
// should run.
func (s *Server) observeUserEdits(ds *docState, old, next *chatdoc.Document, span chatdoc.Span) bool {
	wake := false
	// Under Server.mu: the root is looked up without taking it again.
	autopilot := s.settings.effectiveForRoot(s.workspaceRootLocked(ds.path)).Autopilot
	for _, m := range messagesIn(next, span) {
		for _, r := range m.ToolResults {
			if s.observePlaceholder(ds, old, next, r) {
				wake = true
			}
		}
		for _, u := range m.ToolUses {
			if h, ok := ds.userApproved[u.ID]; ok && h != inputHash(u) {
				// Editing a call's input after approval revokes it.
				delete(ds.userApproved, u.ID)
				ds.revoked[u.ID] = true
				ds.touched[u.ID] = true
				wake = true
			}
			if autopilot && !ds.openIDs[u.ID] && next.ToolResult(u.ID) == nil {
				wake = true
			}
		}
	}
	// A tool use deleted outright also loses its approval.
	if len(ds.userApproved) > 0 && span.End-span.Start < next.Len() {
		for id := range ds.userApproved {
			if next.ToolUse(id) == nil {
				delete(ds.userApproved, id)
			}
		}
	}
	return wake
}

func (s *Server) observePlaceholder(ds *docState, old, next *chatdoc.Document, r *chatdoc.ToolResult) bool {
	if !r.IsPlaceholder() {
		return false
	}
	u := next.ToolUse(r.ID)
	prev := old.ToolResult(r.ID)
	prevStatus := chatdoc.StatusDone
	if prev != nil {
		prevStatus = prev.Status
	}
	switch r.Status {
	case chatdoc.StatusPending:
		if _, known := ds.issued[r.ID]; !known && u != nil {
			ds.issued[r.ID] = inputHash(u)
		}
		delete(ds.userApproved, r.ID) // turned back to pending: approval withdrawn
		return false
	case chatdoc.StatusApproved:
		if prevStatus != chatdoc.StatusPending || prev == nil || u == nil {
			return false
		}
		// The approval counts only for the input the placeholder was issued for.
		if h, known := ds.issued[r.ID]; known && h == inputHash(u) {
			ds.userApproved[r.ID] = h
			ds.touched[r.ID] = true
			delete(ds.revoked, r.ID)
			return true
		}
		ds.revoked[r.ID] = true
		ds.touched[r.ID] = true
		return true
	case chatdoc.StatusRejected:
		if prev != nil && (prevStatus == chatdoc.StatusPending || prevStatus == chatdoc.StatusApproved) {
			ds.touched[r.ID] = true
			delete(ds.userApproved, r.ID)
			return true
		}
	}
	return false
}
