package session

import (
	"sync"
	"time"
	"weak"

	"github.com/chatls/chatls/internal/fileuri"
	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/surface"
)

// Doc is everything the session knows about one open document. The
// snapshot is immutable; it, the version and the ledger are only
// touched under Session.mu.
type Doc struct {
	uri  string
	path string // file path, "" for non-file URIs
	// snap is the server's view: the client's text (base, at version)
	// with the server's own edits the client applied and has not echoed
	// yet (own, own_edits.go); echoed is closed while own is empty.
	snap    *chatdoc.Document
	base    *chatdoc.Document
	version int32
	own     []*ownEdit
	echoed  chan struct{}
	// changed is closed and replaced whenever a new snapshot is installed, so
	// writers can await the client's didChange instead of sleeping.
	changed chan struct{}
	// ledger is the cycle's record of this session (cycle.Ledger).
	ledger *cycle.Ledger
	// writesIdle is closed while no result is being written (see beginWrite).
	writesIdle chan struct{}
	// rewriting holds the results whose edit was lost after it counted as
	// applied and is being written again (Session.redo): their first
	// writer's endWrite must not free the block meanwhile. A count: a redo
	// can be lost again and redone before the first redo has ended.
	rewriting map[string]int

	// writeMu serializes the server's own edits of this document.
	writeMu sync.Mutex
	// cycleMu serializes cycle passes (autopilot and chatls.advance).
	cycleMu sync.Mutex
	// kick wakes the document's cycle worker; buffered so kicks coalesce.
	kick chan bool
	// done is closed when the document closes.
	done chan struct{}
	// diagDoc/diagList cache the diagnostics of one snapshot (under
	// Session.mu). The key is weak: a snapshot nobody else holds any more
	// (10 MB of text and nodes) is not kept alive by its cache entry.
	diagDoc  weak.Pointer[chatdoc.Document]
	diagList []chatdoc.Diagnostic
	// toolDiags remembers the tool findings of each part of the document,
	// so a publish after a keystroke redoes only the parts it touched.
	toolDiags surface.ToolDiagnosticsCache
	// cycleParts likewise remembers which blocks of each part the cycle's
	// diagnostics and status count must look at.
	cycleParts cycle.PartCache
	// stream is the answer being streamed in (nil: none), send the
	// request in flight and chain the autopilot chain (SPEC §7).
	stream *streamState
	send   *sendState
	chain  *chainState
	// sendProblem is why the last send was refused or stopped, shown at
	// the last @You: marker until a send starts.
	sendProblem string
	// jobs are the background jobs running in this session: job → tool ID.
	jobs map[string]string
	// answers are this session's responses, for their code lenses.
	answers []*answerRecord
	// agentSent are the texts of the messages when the last prompt went
	// to the document's agent (acp_history.go), nil before the first.
	agentSent []string
	// requestWindow is the context window of the last request built for
	// a send (0: none yet), for the warning before any answer (SPEC §11).
	requestWindow int
	// diagTimer debounces diagnostics.
	diagTimer *time.Timer
	closed    bool
}

func newDoc(uri string, snap *chatdoc.Document, version int32) *Doc {
	return &Doc{
		uri:        uri,
		path:       fileuri.ToPath(uri),
		snap:       snap,
		base:       snap,
		version:    version,
		echoed:     closedChan(),
		changed:    make(chan struct{}),
		ledger:     cycle.NewLedger(snap),
		writesIdle: closedChan(),
		kick:       make(chan bool, 1),
		jobs:       map[string]string{},
		done:       make(chan struct{}),
	}
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// beginWrite records that a tool's result is being written; the caller
// holds Session.mu.
func (ds *Doc) beginWrite(id string) {
	if ds.ledger.WritesInFlight() == 0 {
		ds.writesIdle = make(chan struct{})
	}
	ds.ledger.Writing(id)
}

// beginRewrite holds a result's block for the redo of its lost edit; the
// caller holds Session.mu.
func (ds *Doc) beginRewrite(id string) {
	if ds.rewriting == nil {
		ds.rewriting = map[string]int{}
	}
	ds.rewriting[id]++
	ds.beginWrite(id)
}

// endRewrite frees what beginRewrite held; the caller holds Session.mu.
func (ds *Doc) endRewrite(id string) {
	if ds.rewriting[id]--; ds.rewriting[id] > 0 {
		return
	}
	delete(ds.rewriting, id)
	ds.endWrite(id)
}

// endWrite ends a result write; the caller holds Session.mu.
func (ds *Doc) endWrite(id string) {
	if ds.rewriting[id] > 0 {
		return // a redo writes it now and ends it (endRewrite)
	}
	if run, ok := ds.ledger.Run(id); !ok || run.Phase != cycle.Writing {
		return
	}
	ds.ledger.Done(id)
	if ds.ledger.WritesInFlight() == 0 {
		close(ds.writesIdle)
	}
}

// openDocs is a snapshot of the open documents, for work that must not hold
// s.mu while it touches each one.
func (s *Session) openDocs() []*Doc {
	s.mu.Lock()
	defer s.mu.Unlock()
	docs := make([]*Doc, 0, len(s.docs))
	for _, ds := range s.docs {
		docs = append(docs, ds)
	}
	return docs
}

// Doc is the state of an open document, or nil.
func (s *Session) Doc(uri string) *Doc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

// Open installs the first snapshot of a document the editor opened, at its
// version. Opening only analyses: it edits and runs nothing (SPEC §2).
func (s *Session) Open(uri, text string, version int32) *Doc {
	ds := newDoc(uri, chatdoc.Parse(text), version)
	opened := ds.snap
	s.takeApprovalsMadeAway(ds)
	s.mu.Lock()
	old := s.docs[uri]
	if old != nil {
		old.closeLocked() // opened twice without a close: the old state ends
	}
	s.docs[uri] = ds
	s.mu.Unlock()
	if old != nil {
		s.agents.closeDoc(old)
	}
	go s.docWorker(ds)
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		s.recallAgentHistory(ds, opened)
	}()
	s.scheduleDiagnostics(ds)
	return ds
}

// Change is the one modification funnel for the editor's edits: it applies
// the changes (positions in the session's encoding; a change without a
// range is the whole text) to the editor's text, settles the session's own
// edits they carry, records what the user did (approvals, rejections,
// input edits) and wakes the cycle. false: the document is not open.
func (s *Session) Change(uri string, changes []chatdoc.Change, version int32) bool {
	s.mu.Lock()
	ds := s.docs[uri]
	if ds == nil {
		s.mu.Unlock()
		return false
	}
	if version <= ds.version {
		// Versions only grow; an editor that breaks this is sending
		// changes out of order and the document may drift.
		s.log.Warn("a change with a version that does not increase", zap.String("uri", uri), zap.Int32("have", ds.version), zap.Int32("got", version))
	}
	wake, changed, lost := s.receiveLocked(ds, changes, version)
	s.mu.Unlock()
	s.redo(ds, lost)
	if changed {
		s.afterChange(ds, wake)
	}
	return true
}

// CloseDoc ends a document: its request stops, its worker ends. false: it
// was not open.
func (s *Session) CloseDoc(uri string) bool {
	s.mu.Lock()
	ds := s.docs[uri]
	delete(s.docs, uri)
	if ds != nil {
		ds.closeLocked()
	}
	s.mu.Unlock()
	if ds != nil {
		s.agents.closeDoc(ds)
	}
	return ds != nil
}

// closeLocked ends the document's worker; the caller holds Session.mu.
func (ds *Doc) closeLocked() {
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
func (ds *Doc) wake() {
	defer func() { _ = recover() }() // the channel is closed when the document closes
	select {
	case ds.kick <- true:
	default:
	}
}

// URI is the document's URI; Path its file ("" for another scheme).
func (ds *Doc) URI() string  { return ds.uri }
func (ds *Doc) Path() string { return ds.path }

// Snapshot is the document's newest snapshot and its editor version.
func (s *Session) Snapshot(ds *Doc) (*chatdoc.Document, int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ds.snap, ds.version
}

// showMessage tells the user something through the editor.
func (s *Session) showMessage(level MessageLevel, text string) { s.editor.ShowMessage(level, text) }
