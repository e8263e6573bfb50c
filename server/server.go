// Package server is the chatls language server: it glues the parser
// (chatdoc), the policy (approval) and the tool runtime (tools) to LSP over
// JSON-RPC. Handlers are thin; state lives in immutable document snapshots.
package server

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/execution"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/provider"
	"github.com/chatls/chatls/provider/usagelog"
	"github.com/chatls/chatls/server/framing"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/server/workdone"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/custom"
)

// Options configure a Server.
type Options struct {
	Logger *zap.Logger
	// Version is reported in serverInfo.
	Version string
	// UserConfigPath overrides $XDG_CONFIG_HOME/chatls/config.toml (--config).
	UserConfigPath string
	// StateDir overrides $XDG_STATE_HOME/chatls (journal, decision log).
	StateDir string
	// NoCustomTools skips plugins and MCP servers from the settings (tests).
	NoCustomTools bool
}

// Server is one LSP session.
type Server struct {
	// targets are the tools' targets in use (SPEC §8).
	targets targetPool
	opts    Options
	log     *zap.Logger

	// conn is set by the first Handle call: jsonrpc2 starts reading inside
	// NewConn, before Serve could assign its result.
	conn atomic.Pointer[jsonrpc2.Conn]
	// frames holds the params of large frames until Handle takes them.
	frames atomic.Pointer[framing.Stream]
	// baseCtx is cancelled when the connection ends; tools run under it.
	baseCtx context.Context
	stop    context.CancelFunc

	mu           sync.Mutex
	docs         map[string]*docState
	initialized  bool
	shuttingDown bool
	enc          chatdoc.Encoding
	encName      string
	caps         clientFeatures
	// silent: the client applies edits without answering (Vim's ALE); no
	// edit waits for its reply (writeback.go).
	silent atomic.Bool
	// answered: the client has answered a workspace/applyEdit; a late
	// answer is then waited for (slowReplyTimeout), not taken for silence.
	answered atomic.Bool
	roots    []string // workspace folder paths
	cancels  map[string]context.CancelFunc
	settings *settingsState

	// handlers answer the requests the dispatcher does not handle itself.
	handlers map[string]requestHandler
	// commands are the chatls commands on a document.
	commands map[string]command

	// tools are the built-ins and the plugin and MCP sources of the
	// trusted settings (registry and source set), closed on exit.
	tools *custom.Session
	// registry and toolSet are tools.Registry and tools.Set, for short.
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

	// tasks counts running tool goroutines so shutdown can wait for them.
	tasks sync.WaitGroup
	// progressCancels are the runs the editor's progress UI can cancel.
	progressCancels workdone.Cancels
	// refreshBusy coalesces inlay-hint refresh requests.
	refreshBusy atomic.Bool

	exited chan struct{}
	once   sync.Once
}

// New creates a server; call Serve to run it.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts:     opts,
		log:      opts.Logger,
		baseCtx:  ctx,
		stop:     cancel,
		docs:     map[string]*docState{},
		enc:      chatdoc.UTF16,
		encName:  lspext.EncodingUTF16,
		cancels:  map[string]context.CancelFunc{},
		exited:   make(chan struct{}),
		handlers: requestHandlers(),
		commands: commands(),
		started:  time.Now().UTC(),
	}
	s.settings = newSettingsState(s)
	s.tools = custom.NewSession(s.log, !opts.NoCustomTools)
	s.registry, s.toolSet = s.tools.Registry, s.tools.Set
	s.runner = tools.NewRunner(s.registry)
	return s
}

// Serve speaks LSP on rwc until the client exits or the stream ends. It
// returns the process exit code LSP prescribes (0 after shutdown, 1 otherwise).
func (s *Server) Serve(rwc io.ReadWriteCloser) int {
	stream := framing.NewStream(rwc, func(reason string) {
		s.log.Warn("bad input from the client", zap.String("reason", reason))
	}, func(reason string) {
		s.mu.Lock()
		clean := s.shuttingDown
		s.mu.Unlock()
		if clean {
			s.log.Info("connection ended", zap.String("why", reason))
		} else {
			s.log.Warn("connection ended without shutdown; exiting with code 1", zap.String("why", reason))
		}
	})
	s.frames.Store(stream)
	conn := jsonrpc2.NewConn(s.baseCtx, stream, s)
	s.conn.Store(conn)
	select {
	case <-conn.DisconnectNotify():
	case <-s.exited:
		_ = conn.Close()
	}
	s.shutdownWork()
	s.mu.Lock()
	clean := s.shuttingDown
	s.mu.Unlock()
	if clean {
		return 0
	}
	return 1
}

// shutdownWork stops running tools and closes files. Safe to call twice.
func (s *Server) shutdownWork() {
	s.once.Do(func() {
		s.stop()
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

// rpc is the connection to the client; nil before the first message.
func (s *Server) rpc() *jsonrpc2.Conn { return s.conn.Load() }
