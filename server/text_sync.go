package server

import (
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/framing"
	"github.com/chatls/chatls/server/lspext"
)

// didOpen installs the first snapshot. Opening only analyses: it edits and
// runs nothing (SPEC §2).
func (s *Server) didOpen(raw *json.RawMessage) {
	var p protocol.DidOpenTextDocumentParams
	if raw == nil || decodeTextParams(*raw, &p, func(l *framing.Lifted) { l.Restore(&p.TextDocument.Text) }) != nil {
		s.log.Warn("didOpen with invalid params ignored")
		return
	}
	uri := string(p.TextDocument.URI)
	snap := chatdoc.Parse(p.TextDocument.Text)
	ds := newDocState(uri, snap, p.TextDocument.Version)
	s.takeApprovalsMadeAway(ds)
	s.mu.Lock()
	if old := s.docs[uri]; old != nil {
		old.closeLocked() // opened twice without a close: the old state ends
	}
	s.docs[uri] = ds
	s.mu.Unlock()
	go s.docWorker(ds)
	s.scheduleDiagnostics(ds)
}

// decodeTextParams is json.Unmarshal(raw, p) for didOpen and didChange,
// whose "text" may be a whole document: a long one is decoded by the fast
// reader (framing.Lift), and restore puts it where its placeholder landed.
func decodeTextParams(raw []byte, p any, restore func(*framing.Lifted)) error {
	if len(raw) >= liftFrom {
		if small, lifted, ok := framing.Lift(raw); ok {
			if err := json.Unmarshal(small, p); err != nil {
				return err
			}
			restore(lifted)
			return nil
		}
	}
	return json.Unmarshal(raw, p)
}

// liftFrom is the params size from which decodeTextParams lifts.
const liftFrom = 64 << 10

// didChange is the one modification funnel for client edits: it applies the
// content changes to the snapshot, records what the user did (approvals,
// rejections, input edits) and wakes the cycle.
func (s *Server) didChange(raw *json.RawMessage) {
	var p lspext.DidChangeTextDocumentParams
	restore := func(l *framing.Lifted) {
		for i := range p.ContentChanges {
			l.Restore(&p.ContentChanges[i].Text)
		}
	}
	if raw == nil || decodeTextParams(*raw, &p, restore) != nil {
		s.log.Warn("didChange with invalid params ignored")
		return
	}
	uri := string(p.TextDocument.URI)
	changes := make([]chatdoc.Change, 0, len(p.ContentChanges))
	s.mu.Lock()
	ds := s.docs[uri]
	if ds == nil {
		s.mu.Unlock()
		s.log.Warn("didChange for a document that is not open", zap.String("uri", uri))
		return
	}
	for _, c := range p.ContentChanges {
		ch := chatdoc.Change{Text: c.Text}
		if c.Range != nil {
			ch.Range = &chatdoc.Range{
				Start: chatdoc.Position{Line: int(c.Range.Start.Line), Character: int(c.Range.Start.Character)},
				End:   chatdoc.Position{Line: int(c.Range.End.Line), Character: int(c.Range.End.Character)},
			}
		}
		changes = append(changes, ch)
	}
	if p.TextDocument.Version <= ds.version {
		// LSP versions only grow; an editor that breaks this is sending
		// changes out of order and the document may drift.
		s.log.Warn("didChange with a version that does not increase", zap.String("uri", uri), zap.Int32("have", ds.version), zap.Int32("got", p.TextDocument.Version))
	}
	wake, changed, lost := s.receiveLocked(ds, changes, p.TextDocument.Version)
	s.mu.Unlock()
	s.redo(ds, lost)
	if changed {
		s.afterChange(ds, wake)
	}
}

func (s *Server) didClose(raw *json.RawMessage) {
	var p protocol.DidCloseTextDocumentParams
	if raw == nil || json.Unmarshal(*raw, &p) != nil {
		return
	}
	uri := string(p.TextDocument.URI)
	s.mu.Lock()
	ds := s.docs[uri]
	delete(s.docs, uri)
	if ds != nil {
		ds.closeLocked()
	}
	s.mu.Unlock()
	if ds != nil {
		// Clear the editor's problems list for the closed file.
		go s.publishDiagnostics(uri, nil, nil)
	}
}

// closeLocked ends the document's worker; the caller holds Server.mu.
func (ds *docState) closeLocked() {
	if ds.closed {
		return
	}
	ds.closed = true
	if ds.send != nil {
		ds.send.cancel(errCancelledByUser) // closing the document stops its request
	}
	close(ds.kick)
	close(ds.done)
	if ds.diagTimer != nil {
		ds.diagTimer.Stop()
	}
}

// wake asks the document's worker to run an autopilot step. Kicks coalesce.
func (ds *docState) wake() {
	defer func() { _ = recover() }() // the channel is closed when the document closes
	select {
	case ds.kick <- true:
	default:
	}
}
