package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/surface"
)

// docState is everything the server knows about one open document. The
// snapshot is immutable; the maps record what happened in this session and
// are only touched under Server.mu.
type docState struct {
	uri     string
	path    string // file path, "" for non-file URIs
	snap    *chatdoc.Document
	version int32
	// changed is closed and replaced whenever a new snapshot is installed, so
	// writers can await the client's didChange instead of sleeping.
	changed chan struct{}

	// openIDs are the tool uses present when the document was opened: they
	// wait for chatls.advance (SPEC §2 "Categorize").
	openIDs map[string]bool
	// issued maps placeholder IDs known as pending in this session to the hash
	// of their tool-use input at that moment.
	issued map[string]string
	// userApproved maps IDs the user approved by a committed edit to the input
	// hash they approved.
	userApproved map[string]string
	// touched marks placeholders created or changed in this session: autopilot
	// only resolves those; the rest wait for chatls.advance.
	touched map[string]bool
	// revoked marks approvals withdrawn because the input changed.
	revoked map[string]bool
	// running tracks executions started by this process; writing the
	// results being written back (the tool ended, the edit is in flight).
	// Which tools finished is the execution journal's business.
	running map[string]*runState
	writing map[string]bool
	// writesIdle is closed while writing is empty (see beginWrite).
	writesIdle chan struct{}

	// writeMu serializes the server's own edits of this document.
	writeMu sync.Mutex
	// cycleMu serializes cycle steps (autopilot and chatls.advance).
	cycleMu sync.Mutex
	// kick wakes the document's cycle worker; buffered so kicks coalesce.
	kick chan bool
	// tokens caches semantic tokens per message; tokenID/tokenData are the
	// last result sent, the base of the next delta.
	tokens      *surface.TokenCache
	tokenMu     sync.Mutex
	tokenSerial int
	tokenID     string
	tokenData   []uint32
	// diagDoc/diagList cache the diagnostics of one snapshot.
	diagMu   sync.Mutex
	diagDoc  *chatdoc.Document
	diagList []chatdoc.Diagnostic
	// diagTimer debounces diagnostics.
	diagTimer *time.Timer
	closed    bool
}

// runState is one tool from the moment it was started (queued for a slot)
// until its result is being written.
type runState struct {
	id   string
	name string // set when it really runs: a slot was free and the journal has its start
	// queued is when startTool took it; started when it really began (equal
	// to queued until then). waited says it had to wait for a free slot.
	queued, started time.Time
	waited          bool
	token           string // work-done progress token, "" when the client has no progress UI
	last            string // last output line
	// ctx is the run's own context: cancel stops it whether it is still
	// queued, about to start or running (chatls.cancel, progress cancel).
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func newDocState(uri string, snap *chatdoc.Document, version int32) *docState {
	ds := &docState{
		uri:          uri,
		path:         uriToPath(uri),
		snap:         snap,
		version:      version,
		changed:      make(chan struct{}),
		openIDs:      map[string]bool{},
		issued:       map[string]string{},
		userApproved: map[string]string{},
		touched:      map[string]bool{},
		revoked:      map[string]bool{},
		running:      map[string]*runState{},
		writing:      map[string]bool{},
		writesIdle:   closedChan(),
		kick:         make(chan bool, 1),
		tokens:       surface.NewTokenCache(),
	}
	for _, u := range snap.ToolUses {
		ds.openIDs[u.ID] = true
	}
	for _, r := range snap.ToolResults {
		if r.Status == chatdoc.StatusPending {
			if u := snap.ToolUse(r.ID); u != nil {
				ds.issued[r.ID] = inputHash(u)
			}
		}
	}
	return ds
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// beginWrite moves a tool from running to writing; the caller holds Server.mu.
func (ds *docState) beginWrite(id string) {
	delete(ds.running, id)
	if len(ds.writing) == 0 {
		ds.writesIdle = make(chan struct{})
	}
	ds.writing[id] = true
}

// endWrite ends a result write; the caller holds Server.mu.
func (ds *docState) endWrite(id string) {
	if !ds.writing[id] {
		return
	}
	delete(ds.writing, id)
	if len(ds.writing) == 0 {
		close(ds.writesIdle)
	}
}

// inputHash identifies a tool use's input so an approval can be tied to it.
// The decoded object is re-encoded (sorted keys) so whitespace edits don't
// revoke approvals but any change of meaning does.
func inputHash(u *chatdoc.ToolUse) string {
	var data []byte
	if u.Input != nil {
		data, _ = json.Marshal(u.Input)
	} else {
		data = []byte(u.RawInput)
	}
	sum := sha256.Sum256(append([]byte(u.Name+"\x00"), data...))
	return hex.EncodeToString(sum[:12])
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

// current returns the document's snapshot and version.
func (s *Server) current(uri string) (*docState, *chatdoc.Document, int32, chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds := s.docs[uri]
	if ds == nil {
		return nil, nil, 0, nil
	}
	return ds, ds.snap, ds.version, ds.changed
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
