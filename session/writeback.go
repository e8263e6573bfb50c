package session

import (
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
)

// A client may refuse an edit (the user typed), apply it without answering
// (Vim's ALE), or answer late: the newest snapshot decides whether an edit
// landed, and an edit is re-sent only once a snapshot shows it did not.
var (
	// EditReplyTimeout is how long an editor's reply to an edit may take
	// before the editor counts as silent. CHATLS_APPLY_EDIT_TIMEOUT (a Go
	// duration) shortens it for tests of silent clients.
	EditReplyTimeout = durationFromEnv("CHATLS_APPLY_EDIT_TIMEOUT", 5*time.Second)
	// SlowReplyTimeout is the bound for an editor that has answered an
	// edit before: a late answer means a busy editor (VS Code took
	// 4.3 s on a loaded machine), not a silent one, and is waited for —
	// the answer streaming meanwhile gathers in the next edit. Only past
	// this bound does the client count as silent.
	SlowReplyTimeout = durationFromEnv("CHATLS_SLOW_APPLY_EDIT_TIMEOUT", 2*time.Minute)
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

// editDocument applies the builder's edits through the editor (LSP: a
// workspace/applyEdit; SPEC §2 "Writing back") until they are in the
// document, the document closes or the session ends. It reports whether the edits landed (false
// also when there was nothing to do).
//
//   - Applied: the server's view moves on at once (own_edits.go); the
//     didChange that echoes it is recognised by its content.
//   - Refused (the user typed): rebuilt on the newest version and re-sent
//     at the next change, or after a growing backoff when the user is idle.
//   - A silent client (Vim's ALE applies edits, never answers, and sends
//     its text only with its next request): the edit counts as applied
//     when sent; its whole-text didChange confirms it later.
//
// An edit names the client's version when the server knows it (every edit
// of its own echoed); otherwise, after EchoWait, it goes unversioned, built
// on the text the client said it has.
func (s *Session) editDocument(ds *Doc, label string, build editBuilder) bool {
	return s.editDocumentWith(ds, label, build, nil)
}

// editDocumentWith is editDocument whose every try also carries along's
// edits of other open files in the same workspace edit (a rewind's
// restores); along is asked again for each try.
func (s *Session) editDocumentWith(ds *Doc, label string, build editBuilder, along func() []FileEdit) bool {
	return s.editDocumentAs(ds, label, build, along, "")
}

// editDocumentAs is editDocumentWith for an edit that writes the result of
// the tool whose ID is result (empty: none), so that should it be lost after
// it counted as applied, its redo holds the block (ownEdit.result).
func (s *Session) editDocumentAs(ds *Doc, label string, build editBuilder, along func() []FileEdit, result string) bool {
	ds.writeMu.Lock()
	defer ds.writeMu.Unlock()
	backoff := refusedRetryFirst
	sent := false
	for {
		s.awaitEcho(ds)
		s.mu.Lock()
		doc, version, versioned, changed := ds.snap, ds.version, len(ds.own) == 0, ds.changed
		ok := !ds.closed && s.baseCtx.Err() == nil
		s.mu.Unlock()
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
		s.mu.Lock()
		if ds.snap != doc { // the user typed while it was built
			s.mu.Unlock()
			continue
		}
		own := ds.sendOwnLocked(doc, edits, label, build, result)
		s.mu.Unlock()
		req := EditRequest{URI: ds.uri, Version: version, Versioned: versioned, Doc: doc, Edits: edits, Label: label}
		if along != nil {
			req.Files = along()
		}
		reply := s.editor.ApplyEdit(req)
		var res EditReply
		select {
		case res = <-reply:
		case <-ds.done:
			return false
		}
		if res.Applied {
			if s.landed(ds, own, res.Echoed) {
				return true
			}
			continue // lost to the user's typing: rebuild on what is there now
		}
		s.mu.Lock()
		ds.dropOwnLocked(func(o *ownEdit) bool { return o == own })
		s.mu.Unlock()
		s.log.Debug("edit refused; retrying on the newest version", zap.String("label", label), zap.String("reason", res.Reason), zap.Error(res.Err))
		if !s.awaitChange(ds, changed, backoff) && !s.open(ds) {
			return false
		}
		backoff = min(2*backoff, refusedRetryMax)
	}
}

// awaitEcho waits, at most EchoWait, until the client has echoed every edit
// of the server's, so that the next one can name its version.
func (s *Session) awaitEcho(ds *Doc) {
	if !s.editor.Echoes() {
		return
	}
	s.mu.Lock()
	echoed := ds.echoed
	s.mu.Unlock()
	t := time.NewTimer(EchoWait)
	defer t.Stop()
	select {
	case <-echoed:
	case <-t.C:
	case <-ds.done:
	case <-s.baseCtx.Done():
	}
}

// open says whether the document is still open and the server running.
func (s *Session) open(ds *Doc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !ds.closed && s.baseCtx.Err() == nil
}

// awaitChange waits for changed to close, at most timeout (0: no bound);
// false when the time is up, the document closed or the server stops.
func (s *Session) awaitChange(ds *Doc, changed chan struct{}, timeout time.Duration) bool {
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
