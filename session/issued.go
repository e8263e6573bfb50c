package session

import (
	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
)

// recordIssued writes to the journal the placeholders this server issues as
// pending, with their input's hash: an approval the user later types into
// the file with no chatls watching (a terminal editor, then `chatls send`)
// is honoured only for these (SPEC §7, cycle.Ledger.ApprovedAway).
func (s *Session) recordIssued(ds *Doc, doc *chatdoc.Document, ids []string) {
	if s.journal == nil {
		return
	}
	for _, id := range ids {
		u := doc.ToolUse(id)
		if u == nil {
			continue
		}
		if err := s.journal.Issue(ds.journalKey(), id, cycle.InputHash(u)); err != nil {
			// Only an approval made away from chatls is lost: it asks again.
			s.log.Warn("execution journal write failed", zap.String("id", id), zap.Error(err))
		}
	}
}

// pendingIDs are the IDs of statuses that are pending.
func pendingIDs(statuses map[string]chatdoc.Status) []string {
	var ids []string
	for id, st := range statuses {
		if st == chatdoc.StatusPending {
			ids = append(ids, id)
		}
	}
	return ids
}

// takeApprovalsMadeAway gives the ledger of a document just opened the
// approvals the user made in the file while no chatls watched it.
func (s *Session) takeApprovalsMadeAway(ds *Doc) {
	if s.journal == nil {
		return
	}
	key := ds.journalKey()
	ds.ledger.ApprovedAway(ds.snap, func(id string) (string, bool) { return s.journal.IssuedFor(key, id) })
}
