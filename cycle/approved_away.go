package cycle

import "github.com/chatls/chatls/chatdoc"

// ApprovedAway takes in the approvals the user made while no chatls
// watched the document (SPEC §7 "The terminal is a full client": edited in
// a terminal editor, then `chatls send FILE`). A placeholder that is
// approved now counts as the user's committed approval only if chatls
// issued it as pending for the tool input it has now — issuedFor is the
// journal's record. Anything else that arrives approved stays "approved
// before this session". Like every placeholder that was there on open, the
// call still waits for chatls.advance: opening runs nothing (SPEC §2).
func (l *Ledger) ApprovedAway(doc *chatdoc.Document, issuedFor func(id string) (string, bool)) {
	for _, r := range doc.ToolResults() {
		if !r.IsPlaceholder() || r.Status != chatdoc.StatusApproved {
			continue
		}
		u := doc.ToolUse(r.ID)
		if u == nil {
			continue
		}
		h, ok := issuedFor(r.ID)
		if !ok || h != InputHash(u) {
			continue
		}
		l.issued[r.ID] = h
		l.userApproved[r.ID] = h
		// chatls issued it with no escape words: any sandbox=off or
		// network=on in it now is the user's, as if typed in an editor.
		l.escapes.placed(r.ID)
		l.escapes.approved(r)
	}
}
