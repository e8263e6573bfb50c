package server

import (
	"context"
	"encoding/json"
	"sync"
	"time"
	"weak"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/server/surface"
)

// docState is everything the server knows about one open document. The
// snapshot is immutable; it, the version, the ledger and runs are only
// touched under Server.mu.
type docState struct {
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
	// runs are the cancellation handles and progress of the tools the
	// ledger has taken to run, by ID.
	runs map[string]*runState
	// writesIdle is closed while no result is being written (see beginWrite).
	writesIdle chan struct{}

	// writeMu serializes the server's own edits of this document.
	writeMu sync.Mutex
	// cycleMu serializes cycle passes (autopilot and chatls.advance).
	cycleMu sync.Mutex
	// kick wakes the document's cycle worker; buffered so kicks coalesce.
	kick chan bool
	// done is closed when the document closes.
	done chan struct{}
	// tokens answers semantic-token requests, with deltas against the last.
	tokens *surface.TokenResults
	// diagDoc/diagList cache the diagnostics of one snapshot (under
	// Server.mu). The key is weak: a snapshot nobody else holds any more
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
	// lastStatus is the text of the last chatls/status notice.
	lastStatus string
	// answers are this session's responses, for their code lenses.
	answers []*answerRecord
	// diagTimer debounces diagnostics.
	diagTimer *time.Timer
	closed    bool
}

// runState is the server's side of one run the ledger tracks: how to
// cancel it and what its progress shows.
type runState struct {
	id string
	// ctx is the run's own context: cancel stops it whether it is still
	// queued, about to start or running (chatls.cancel, progress cancel).
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func newDocState(uri string, snap *chatdoc.Document, version int32) *docState {
	return &docState{
		uri:        uri,
		path:       uriToPath(uri),
		snap:       snap,
		base:       snap,
		version:    version,
		echoed:     closedChan(),
		changed:    make(chan struct{}),
		ledger:     cycle.NewLedger(snap),
		runs:       map[string]*runState{},
		writesIdle: closedChan(),
		kick:       make(chan bool, 1),
		done:       make(chan struct{}),
		tokens:     surface.NewTokenResults(),
	}
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// beginWrite records that a tool's result is being written; the caller
// holds Server.mu.
func (ds *docState) beginWrite(id string) {
	if ds.ledger.WritesInFlight() == 0 {
		ds.writesIdle = make(chan struct{})
	}
	ds.ledger.Writing(id)
}

// endWrite ends a result write; the caller holds Server.mu.
func (ds *docState) endWrite(id string) {
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
func (s *Server) openDocs() []*docState {
	s.mu.Lock()
	defer s.mu.Unlock()
	docs := make([]*docState, 0, len(s.docs))
	for _, ds := range s.docs {
		docs = append(docs, ds)
	}
	return docs
}

// docState is the state of an open document, or nil.
func (s *Server) docState(uri string) *docState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

// captureSnapshot finds the snapshot of the document a request names, at the
// moment the request is dispatched.
func (s *Server) captureSnapshot(params *json.RawMessage) *snapshot {
	if params == nil {
		return nil
	}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Arguments []struct {
			URI string `json:"uri"`
		} `json:"arguments"`
	}
	if json.Unmarshal(*params, &p) != nil {
		return nil
	}
	uri := p.TextDocument.URI
	if uri == "" && len(p.Arguments) > 0 {
		uri = p.Arguments[0].URI
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ds := s.docs[uri]
	if ds == nil {
		return nil
	}
	return &snapshot{uri: uri, doc: ds.snap, version: ds.version, enc: s.enc}
}

// snapshot is what a request handler works on.
type snapshot struct {
	uri     string
	doc     *chatdoc.Document
	version int32
	enc     chatdoc.Encoding
}
