// Package session is a document's whole life: its snapshot and the
// server's own edits, the ledger of its tool calls, the answer streaming
// in, the autopilot chain and the writing back of results. It decides;
// whoever shows the document — an LSP client (package server) or a file in
// a terminal (chatls send) — implements Editor and only carries out.
package session

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/execution"
	"github.com/chatls/chatls/internal/workdone"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/provider"
	"github.com/chatls/chatls/provider/usagelog"
	"github.com/chatls/chatls/rewind"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/custom"
)

// Options configure a Session.
type Options struct {
	Logger *zap.Logger
	// UserConfigPath overrides $XDG_CONFIG_HOME/chatls/config.toml (--config).
	UserConfigPath string
	// StateDir overrides $XDG_STATE_HOME/chatls (journal, decision log).
	StateDir string
	// NoCustomTools skips plugins and MCP servers from the settings (tests).
	NoCustomTools bool
	// SendLockHeld names a file whose send lock the caller already holds
	// (chatls send locks FILE before it opens it): its sends do not take
	// the lock again.
	SendLockHeld string
	// SandboxWhenNeeded probes bubblewrap when a call first needs to know
	// whether it works, not at start and after each settings change, and
	// tells the user then (chatls send: an answer without bash starts no
	// sandbox). The status says unsandboxed only once that is known.
	SandboxWhenNeeded bool
}

// Session is the documents of one workspace and what they share: the
// settings, the tools, the execution journal and the running calls.
type Session struct {
	opts   Options
	log    *zap.Logger
	editor Editor

	// baseCtx is cancelled when the session ends; tools run under it.
	baseCtx context.Context
	stop    context.CancelFunc

	mu   sync.Mutex
	docs map[string]*Doc
	// files are the other files the editor has open (open_files.go);
	// filesChanged is closed and replaced whenever one changes or closes.
	files        map[string]*openFile
	filesChanged chan struct{}
	enc          chatdoc.Encoding
	roots        []string // workspace folder paths
	// targets are the tools' targets in use (SPEC §8).
	targets  targetPool
	settings *settingsState

	// tools are the built-ins and the plugin and MCP sources of the
	// trusted settings (registry and source set), closed on exit.
	tools     *custom.Session
	registry  *tools.Registry
	toolSet   *custom.Set
	runner    *tools.Runner
	executor  *execution.Executor
	journal   *journal.Journal
	decisions *approval.DecisionLog
	// keys finds provider keys (an apiKeyCommand runs once per session);
	// usage is usage.jsonl.
	keys  provider.Keys
	usage *usagelog.Log
	// started is when the session began (chatls.usage's session totals).
	started time.Time
	// sandbox knows whether the bubblewrap binaries in use can start.
	sandbox tools.SandboxState

	// rewindStore holds the checkpoints (SPEC §10), opened on first use.
	rewindOnce  sync.Once
	rewindStore *rewind.Store
	rewindErr   error

	// agents are the documents' external agents (SPEC §12).
	agents agentPool

	// tasks counts running goroutines so Close can wait for them.
	tasks sync.WaitGroup
	// progressCancels are the runs the editor's progress UI can cancel.
	progressCancels workdone.Cancels
	once            sync.Once
}

// New creates a session shown by editor; call Start to load its settings.
func New(opts Options, editor Editor) *Session {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{
		opts:         opts,
		log:          opts.Logger,
		editor:       editor,
		baseCtx:      ctx,
		stop:         cancel,
		docs:         map[string]*Doc{},
		files:        map[string]*openFile{},
		filesChanged: make(chan struct{}),
		enc:          chatdoc.UTF16,
		started:      time.Now().UTC(),
	}
	s.settings = newSettingsState(s)
	s.tools = custom.NewSession(s.log, !opts.NoCustomTools)
	s.registry, s.toolSet = s.tools.Registry, s.tools.Set
	s.runner = tools.NewRunner(s.registry)
	return s
}

// Start loads every settings layer (editorSettings are the editor's, JSON;
// nil: none), opens the journal and starts the tool sources. encoding is
// how the editor counts characters in positions.
func (s *Session) Start(roots []string, encoding chatdoc.Encoding, editorSettings any) {
	s.mu.Lock()
	s.roots, s.enc = roots, encoding
	s.mu.Unlock()
	userPath := s.opts.UserConfigPath
	if userPath == "" {
		userPath = config.UserConfigPath()
	}
	s.settings.initialLoad(userPath, roots, editorSettings)
	s.openState()
	s.startToolSources()
}

// Close stops running tools and closes files. Safe to call twice.
func (s *Session) Close() {
	s.once.Do(func() {
		s.stop()
		s.agents.closeAll() // no agent process outlives the session
		// Tools die with the session (their contexts derive from baseCtx,
		// which stop ended); their journal entries stay unfinished so a
		// restarted chatls reports them instead of running them again.
		s.tasks.Wait()
		s.targets.Close()
		if err := s.tools.Close(); err != nil {
			s.log.Warn("closing tool sources", zap.Error(err))
		}
		_ = s.settings.store.Close()
		if s.journal != nil {
			_ = s.journal.Close()
		}
		if s.decisions != nil {
			_ = s.decisions.Close()
		}
	})
}

// Encoding is how positions count characters in this session.
func (s *Session) Encoding() chatdoc.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// Logger is the session's log.
func (s *Session) Logger() *zap.Logger { return s.log }
