package server

import (
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/lspext"
)

// Timeouts for the server's own edits. A client may refuse an edit (the user
// typed) or never answer at all (Vim's ALE): either way the newest snapshot
// decides whether the edit landed.
const (
	applyEditReplyTimeout = 5 * time.Second
	editAttempts          = 8
)

// editBuilder computes edits against a snapshot. It must be idempotent: it
// locates its targets by tool ID and returns nothing once the work is done,
// so a retry never writes a result twice.
type editBuilder func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error)

// editDocument applies the builder's edits with a versioned
// workspace/applyEdit for the version the server last saw, retrying against
// the newest version when the client refuses (SPEC §2 "Writing back"). It
// reports whether the edits landed.
func (s *Server) editDocument(ds *docState, label string, build editBuilder) bool {
	ds.writeMu.Lock()
	defer ds.writeMu.Unlock()
	for attempt := 0; attempt < editAttempts; attempt++ {
		_, doc, version, changed := s.current(ds.uri)
		if doc == nil || s.baseCtx.Err() != nil {
			return false
		}
		edits, err := build(doc)
		if err != nil {
			s.log.Warn("cannot build an edit", zap.String("label", label), zap.Error(err))
			return false
		}
		if len(edits) == 0 {
			return attempt > 0
		}
		reply := s.applyEdit(lspext.ApplyWorkspaceEditParams{Label: label, Edit: s.workspaceEdit(ds.uri, version, doc, edits)})
		select {
		case res := <-reply:
			if res.err != nil || !res.Applied {
				// Refused or failed: wait for the user's newer version, then rebuild.
				s.log.Debug("edit refused; retrying on the newest version", zap.String("label", label), zap.String("reason", res.FailureReason), zap.Error(res.err))
				s.awaitChange(changed, time.Second)
				continue
			}
			// Applied: the client's didChange carries it; wait for it so the
			// next edit is built on the new version. Done: rebuilding now
			// would write again what the user may already have undone.
			if !s.awaitChange(changed, applyEditReplyTimeout) {
				s.log.Warn("the client applied an edit but sent no didChange", zap.String("label", label))
			}
			return true
		case <-changed:
			// The document changed before the reply: usually the didChange
			// that carries our edit, answered right after; or the user typed.
			if _, doc, _, _ := s.current(ds.uri); doc != nil {
				if again, _ := build(doc); len(again) == 0 {
					return true // ours is in (a client like ALE may never answer)
				}
			}
			// Not in the document (yet, or any more: the user may have undone
			// it): only the answer tells which. Rebuilding at once would write
			// the result again over the user's undo.
			select {
			case res := <-reply:
				if res.err == nil && res.Applied {
					return true // the didChange carrying it came before the answer
				}
			case <-time.After(applyEditReplyTimeout):
				s.log.Warn("no reply to workspace/applyEdit", zap.String("label", label))
			case <-s.baseCtx.Done():
				return false
			}
			continue
		case <-time.After(applyEditReplyTimeout):
			s.log.Warn("no reply to workspace/applyEdit", zap.String("label", label))
		case <-s.baseCtx.Done():
			return false
		}
	}
	_, doc, _, _ := s.current(ds.uri)
	if doc != nil {
		if edits, _ := build(doc); len(edits) == 0 {
			return true
		}
	}
	s.log.Error("giving up on an edit after retries", zap.String("label", label))
	return false
}

func (s *Server) awaitChange(changed chan struct{}, timeout time.Duration) bool {
	select {
	case <-changed:
		return true
	case <-time.After(timeout):
		return false
	case <-s.baseCtx.Done():
		return false
	}
}

// workspaceEdit is a versioned TextDocumentEdit for the snapshot the edits
// were built on (or plain changes for clients without documentChanges).
func (s *Server) workspaceEdit(uri string, version int32, doc *chatdoc.Document, edits []chatdoc.TextEdit) lspext.WorkspaceEdit {
	wire := lspEdits(doc, edits, s.encoding())
	if !s.features().documentChanges {
		return lspext.WorkspaceEdit{Changes: map[string][]lspext.TextEdit{uri: wire}}
	}
	return lspext.WorkspaceEdit{DocumentChanges: []lspext.TextDocumentEdit{{
		TextDocument: lspext.VersionedTextDocumentIdentifier{URI: uri, Version: version}, Edits: wire}}}
}

func (s *Server) encoding() chatdoc.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}
