package cycle

import "github.com/chatls/chatls/chatdoc"

// Observe records what a client edit from old to next means (SPEC §2): a
// pending placeholder the user turned approved (their approval, for the
// input the placeholder was issued for), a rejection, an input edit that
// revokes an approval, or a new tool use autopilot may categorize. Only the
// messages overlapping span — the part of next the edit touched — are
// looked at, so a keystroke in a large document stays cheap. It reports
// whether the cycle should run.
func (l *Ledger) Observe(old, next *chatdoc.Document, span chatdoc.Span, autopilot bool) bool {
	wake := false
	for _, m := range MessagesIn(next, span) {
		for _, r := range m.ToolResults {
			if l.observePlaceholder(old, next, r) {
				wake = true
			}
		}
		for _, u := range m.ToolUses {
			if h, ok := l.userApproved[u.ID]; ok && h != InputHash(u) {
				// Editing a call's input after approval revokes it.
				delete(l.userApproved, u.ID)
				l.revoked[u.ID] = true
				l.touched[u.ID] = true
				wake = true
			}
			if autopilot && !l.openIDs.Has(u.ID) && next.ToolResult(u.ID) == nil {
				wake = true
			}
		}
	}
	// A tool use deleted outright also loses its approval.
	if len(l.userApproved) > 0 && span.End-span.Start < next.Len() {
		for id := range l.userApproved {
			if next.ToolUse(id) == nil {
				delete(l.userApproved, id)
			}
		}
	}
	return wake
}

func (l *Ledger) observePlaceholder(old, next *chatdoc.Document, r *chatdoc.ToolResult) bool {
	if !r.IsPlaceholder() {
		return false
	}
	u := next.ToolUse(r.ID)
	prev := old.ToolResult(r.ID)
	if prev != nil && prev.IsPlaceholder() {
		l.escapes.seen(prev) // what it said before this edit
	} else {
		l.escapes.seen(r)
	}
	prevStatus := chatdoc.StatusDone
	if prev != nil {
		prevStatus = prev.Status
	}
	switch r.Status {
	case chatdoc.StatusPending:
		if _, known := l.issued[r.ID]; !known && u != nil {
			l.issued[r.ID] = InputHash(u)
		}
		delete(l.userApproved, r.ID) // turned back to pending: approval withdrawn
		l.escapes.withdraw(r.ID)
		return false
	case chatdoc.StatusApproved:
		if prevStatus != chatdoc.StatusPending || prev == nil || u == nil {
			return false // text that arrives approved is no approval
		}
		// The approval counts only for the input the placeholder was issued for.
		if h, known := l.issued[r.ID]; known && h == InputHash(u) {
			l.userApproved[r.ID] = h
			l.escapes.approved(r)
			l.touched[r.ID] = true
			delete(l.revoked, r.ID)
			return true
		}
		l.revoked[r.ID] = true
		l.touched[r.ID] = true
		return true
	case chatdoc.StatusRejected:
		if prev != nil && (prevStatus == chatdoc.StatusPending || prevStatus == chatdoc.StatusApproved) {
			l.touched[r.ID] = true
			delete(l.userApproved, r.ID)
			return true
		}
	}
	return false
}

// ChangedSpan is a conservative byte range of next that a batch of changes
// touched; the whole document when it can't be narrowed cheaply.
func ChangedSpan(old, next *chatdoc.Document, changes []chatdoc.Change, enc chatdoc.Encoding) chatdoc.Span {
	whole := chatdoc.Span{Start: 0, End: next.Len()}
	if len(changes) != 1 || changes[0].Range == nil {
		return whole
	}
	start := old.Span(*changes[0].Range, enc).Start
	return chatdoc.Span{Start: start, End: start + len(changes[0].Text)}
}

// MessagesIn returns the messages of doc that overlap span (touching counts).
func MessagesIn(doc *chatdoc.Document, span chatdoc.Span) []*chatdoc.Message {
	n := doc.MessageCount()
	i := max(0, doc.MessageIndexAt(span.Start))
	if i > 0 && doc.MessageSpan(i).Start == span.Start {
		i-- // the message before ends where span starts: it touches
	}
	j := i
	for j < n && doc.MessageSpan(j).Start <= span.End {
		j++
	}
	return doc.MessageRange(i, j)
}
