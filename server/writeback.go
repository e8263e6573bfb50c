package server

import (
	"context"
	"errors"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/lspext"
)

// A client may refuse an edit (the user typed), apply it without answering
// (Vim's ALE), or answer late: the newest snapshot decides whether an edit
// landed, and an edit is re-sent only once a snapshot shows it did not.
var (
	// applyEditReplyTimeout is how long a reply may take before the client
	// counts as silent. CHATLS_APPLY_EDIT_TIMEOUT (a Go duration) shortens
	// it for tests of silent clients.
	applyEditReplyTimeout = durationFromEnv("CHATLS_APPLY_EDIT_TIMEOUT", 5*time.Second)
	// Refused edits are retried whenever the document changes, and
	// otherwise after a backoff from refusedRetryFirst to refusedRetryMax:
	// by time, never giving up while the document is open.
	refusedRetryFirst = 100 * time.Millisecond
	refusedRetryMax   = time.Second
)

func durationFromEnv(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// editBuilder computes edits against a snapshot. It must be idempotent: it
// locates its targets by tool ID and returns nothing once the work is done,
// so a retry never writes a result twice.
type editBuilder func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error)

// editDocument applies the builder's edits with a versioned
// workspace/applyEdit for the version the server last saw (SPEC §2
// "Writing back"), until they are in the document, the document closes or
// the server stops. It reports whether the edits landed (false also when
// there was nothing to do).
//
//   - Refused (the user typed): rebuilt on the newest version and re-sent
//     at the next change, or after a growing backoff when the user is idle.
//   - Applied: done once the didChange carrying it arrives (or a bound).
//   - No answer (a silent client): the edit may have landed; it is re-sent
//     only after a didChange shows it did not — never blindly, which would
//     write it twice.
func (s *Server) editDocument(ds *docState, label string, build editBuilder) bool {
	ds.writeMu.Lock()
	defer ds.writeMu.Unlock()
	backoff := refusedRetryFirst
	sent := false
	for {
		doc, version, changed, ok := s.docForEdit(ds)
		if !ok {
			return false
		}
		edits, err := build(doc)
		if err != nil {
			s.log.Warn("cannot build an edit", zap.String("label", label), zap.Error(err))
			return false
		}
		if len(edits) == 0 {
			return sent // done, by this or an earlier attempt
		}
		sent = true
		reply := s.applyEdit(lspext.ApplyWorkspaceEditParams{Label: label, Edit: s.workspaceEdit(ds.uri, version, doc, edits)})
		var res applyReply
		select {
		case res = <-reply:
		case <-changed:
			// The document changed before the answer: usually the didChange
			// that carries our edit (a client like ALE may never answer),
			// or the user typed.
			if again, _ := build(s.latest(ds)); len(again) == 0 {
				return true
			}
			// Not in the document (yet, or any more: the user may have
			// undone it): only the answer tells which.
			if res = <-reply; res.err == nil && res.Applied {
				return true
			}
			if !errors.Is(res.err, context.DeadlineExceeded) {
				continue // refused: rebuild on the version that is there now
			}
			changed = s.changeSignal(ds)
		case <-ds.done:
			return false
		}
		switch {
		case res.err == nil && res.Applied:
			// The client's didChange carries it; wait for it so the next
			// edit is built on the new version.
			if !s.awaitChange(ds, changed, applyEditReplyTimeout) {
				s.log.Warn("the client applied an edit but sent no didChange", zap.String("label", label))
			}
			return true
		case errors.Is(res.err, context.DeadlineExceeded):
			// Silent: it may have landed. Only a newer snapshot can tell.
			s.log.Warn("no reply to workspace/applyEdit; waiting for the next change to see whether it landed", zap.String("label", label))
			if !s.awaitChange(ds, changed, 0) {
				return false
			}
		default:
			s.log.Debug("edit refused; retrying on the newest version", zap.String("label", label), zap.String("reason", res.FailureReason), zap.Error(res.err))
			if !s.awaitChange(ds, changed, backoff) && !s.open(ds) {
				return false
			}
			backoff = min(2*backoff, refusedRetryMax)
		}
	}
}

// docForEdit is the document's newest snapshot, its version and the signal
// of its next change; ok is false once it closed or the server stops.
func (s *Server) docForEdit(ds *docState) (*chatdoc.Document, int32, chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ds.snap, ds.version, ds.changed, !ds.closed && s.baseCtx.Err() == nil
}

// changeSignal is closed at the document's next change.
func (s *Server) changeSignal(ds *docState) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ds.changed
}

// open says whether the document is still open and the server running.
func (s *Server) open(ds *docState) bool {
	_, _, _, ok := s.docForEdit(ds)
	return ok
}

// awaitChange waits for changed to close, at most timeout (0: no bound);
// false when the time is up, the document closed or the server stops.
func (s *Server) awaitChange(ds *docState, changed chan struct{}, timeout time.Duration) bool {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-changed:
		return true
	case <-expired:
	case <-ds.done:
	case <-s.baseCtx.Done():
	}
	return false
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
