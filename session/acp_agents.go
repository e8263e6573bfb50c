package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/chatls/chatls/acp"
	"github.com/chatls/chatls/provider"
)

// agentPool is the external agents of the open documents (SPEC §12): one
// process per document, started on its first send, kept while it is open,
// closed with it or with the session.
type agentPool struct {
	mu     sync.Mutex
	docs   map[*Doc]*docAgent
	closed bool
	wg     sync.WaitGroup // agents being closed
}

// docAgent is a document's agent and its session.
type docAgent struct {
	mu      sync.Mutex // held while starting
	agent   *acp.Agent
	key     string // the entry it was started for: command and env
	session string

	// The turn in flight (under Session.mu): its answer, and the calls
	// whose permission was granted (their file and terminal requests
	// are their work).
	answer  *agentAnswer
	stream  *streamState
	allowed map[string]bool
	// asks are the permissions that wait for the user, by tool-call ID
	// (acp_options.go).
	asks map[string]*agentAsk
}

func (p *agentPool) forDoc(ds *Doc) *docAgent {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.docs == nil {
		p.docs = map[*Doc]*docAgent{}
	}
	a := p.docs[ds]
	if a == nil {
		a = &docAgent{}
		p.docs[ds] = a
	}
	return a
}

// closeDoc ends the document's agent, in the background: closing waits
// for its process group to be gone.
func (p *agentPool) closeDoc(ds *Doc) {
	p.mu.Lock()
	a := p.docs[ds]
	delete(p.docs, ds)
	p.mu.Unlock()
	if a == nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.agent != nil {
			a.agent.Close()
			a.agent = nil
		}
	}()
}

// closeAll ends every agent and returns once their processes are gone.
func (p *agentPool) closeAll() {
	p.mu.Lock()
	p.closed = true
	docs := slices.Collect(maps.Values(p.docs))
	p.docs = nil
	p.mu.Unlock()
	for _, a := range docs {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			// Not under a.mu: a send may hold it while the agent starts.
			a.mu.Lock()
			ag := a.agent
			a.mu.Unlock()
			if ag != nil {
				ag.Close()
			}
		}()
	}
	p.wg.Wait()
}

// agentKey names the entry an agent was started for: a hash, since env
// may hold keys and the key is stored in the state directory.
func agentKey(e provider.Entry) string {
	var b strings.Builder
	b.WriteString(strings.Join(e.Command, "\x00"))
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		b.WriteString("\x01" + k + "=" + e.Env[k])
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:12])
}

// agentFor is the document's agent and session for entry: the running one,
// or a new process (the last one exited, broke the protocol or was started
// for another entry) with session/load of the session this document used
// before when the agent can, else session/new in the workspace root.
func (s *Session) agentFor(ctx context.Context, ds *Doc, e provider.Entry) (*acp.Agent, string, error) {
	a := s.agents.forDoc(ds)
	a.mu.Lock()
	defer a.mu.Unlock()
	key := agentKey(e)
	if a.agent != nil && (a.agent.Err() != nil || a.key != key) {
		old := a.agent
		a.agent, a.session = nil, ""
		go old.Close() // its process group is killed already if it failed
	}
	root := s.workspaceRoot(ds.path)
	if a.agent == nil {
		ag, err := acp.Start(ctx, acp.Spec{Command: e.Command, Env: e.Env, Dir: root, Log: s.log}, &agentClient{s: s, ds: ds})
		if err != nil {
			return nil, "", err
		}
		s.agents.mu.Lock()
		closed := s.agents.closed
		s.agents.mu.Unlock()
		if closed {
			ag.Close()
			return nil, "", errCancelledByUser
		}
		a.agent, a.key = ag, key
	}
	if a.session == "" {
		prev := s.agentSessions().get(ds.journalKey(), key)
		opened, err := a.agent.Session(ctx, root, prev)
		if err != nil {
			return nil, "", err
		}
		if opened.LoadError != nil {
			s.showMessage(MessageInfo, "chatls: "+opened.LoadError.Error())
		}
		a.session = opened.ID
		s.agentSessions().put(ds.journalKey(), key, opened.ID)
	}
	return a.agent, a.session, nil
}

// agentSessionStore remembers each document's agent session by document
// path (SPEC §12), in the state directory: agent-sessions.json.
type agentSessionStore struct {
	path string
	log  *zap.Logger
}

var agentSessionsMu sync.Mutex

func (s *Session) agentSessions() agentSessionStore {
	return agentSessionStore{path: filepath.Join(s.stateDir(), "agent-sessions.json"), log: s.log}
}

type agentSessionEntry struct {
	Agent   string `json:"agent"` // agentKey: the command and env it was started with
	Session string `json:"session"`
}

func (st agentSessionStore) read() map[string]agentSessionEntry {
	m := map[string]agentSessionEntry{}
	if data, err := os.ReadFile(st.path); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

// get is the session the document used with this agent, or "".
func (st agentSessionStore) get(doc, agent string) string {
	agentSessionsMu.Lock()
	defer agentSessionsMu.Unlock()
	if e, ok := st.read()[doc]; ok && e.Agent == agent {
		return e.Session
	}
	return ""
}

func (st agentSessionStore) put(doc, agent, session string) {
	agentSessionsMu.Lock()
	defer agentSessionsMu.Unlock()
	m := st.read()
	m[doc] = agentSessionEntry{Agent: agent, Session: session}
	st.write(m)
}

// forget drops the session remembered for doc: a new document at that
// path (a branch that takes the name of a deleted one) starts a session of
// its own instead of going on in the old file's.
func (st agentSessionStore) forget(doc string) {
	agentSessionsMu.Lock()
	defer agentSessionsMu.Unlock()
	m := st.read()
	if _, ok := m[doc]; !ok {
		return
	}
	delete(m, doc)
	st.write(m)
}

func (st agentSessionStore) write(m map[string]agentSessionEntry) {
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.MkdirAll(filepath.Dir(st.path), 0o700); err == nil {
		tmp := st.path + ".tmp"
		if err = os.WriteFile(tmp, data, 0o600); err == nil {
			err = os.Rename(tmp, st.path)
		}
		if err != nil {
			st.log.Warn("cannot remember the agent's session", zap.Error(err))
		}
	}
}
