// Package server is chatls's LSP adapter: it decodes what the editor
// sends, calls the session (package session, where every decision about a
// document is made) and encodes the answers, and it is the session's
// Editor over JSON-RPC (editor.go).
package server

import (
	"context"
	"io"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/framing"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/session"
	"github.com/chatls/chatls/surface"
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

// Server is one LSP connection over one session.
type Server struct {
	opts Options
	log  *zap.Logger
	sess *session.Session

	// conn is set by the first Handle call: jsonrpc2 starts reading inside
	// NewConn, before Serve could assign its result.
	conn atomic.Pointer[jsonrpc2.Conn]
	// frames holds the params of large frames until Handle takes them.
	frames atomic.Pointer[framing.Stream]
	// baseCtx is cancelled when the connection ends.
	baseCtx context.Context
	stop    context.CancelFunc

	mu           sync.Mutex
	initialized  bool
	shuttingDown bool
	enc          chatdoc.Encoding
	encName      string
	caps         clientFeatures
	// views are what the editor was last shown of each open document.
	views map[string]*docView
	// silent: the client applies edits without answering (Vim's ALE); no
	// edit waits for its reply (editor.go).
	silent atomic.Bool
	// answered: the client has answered a workspace/applyEdit; a late
	// answer is then waited for (session.SlowReplyTimeout), not taken for
	// silence.
	answered atomic.Bool
	cancels  map[string]context.CancelFunc

	// handlers answer the requests the dispatcher does not handle itself.
	handlers map[string]requestHandler
	// commands are the chatls commands on a document.
	commands map[string]command
	// refreshBusy coalesces inlay-hint refresh requests.
	refreshBusy atomic.Bool

	exited chan struct{}
	once   sync.Once
}

// docView is the editor's side of one open document.
type docView struct {
	// tokens answers semantic-token requests, with deltas against the last.
	tokens *surface.TokenResults
	// lastStatus is the text of the last chatls/status notice.
	lastStatus string
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
		enc:      chatdoc.UTF16,
		encName:  lspext.EncodingUTF16,
		views:    map[string]*docView{},
		cancels:  map[string]context.CancelFunc{},
		exited:   make(chan struct{}),
		handlers: requestHandlers(),
		commands: commands(),
	}
	s.sess = session.New(session.Options{Logger: opts.Logger, UserConfigPath: opts.UserConfigPath,
		StateDir: opts.StateDir, NoCustomTools: opts.NoCustomTools}, lspEditor{s})
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

// shutdownWork ends the session: running tools stop, files close. Safe to
// call twice.
func (s *Server) shutdownWork() {
	s.once.Do(func() {
		s.stop()
		s.sess.Close()
	})
}

// rpc is the connection to the client; nil before the first message.
func (s *Server) rpc() *jsonrpc2.Conn { return s.conn.Load() }

// view is the editor's side of an open document (made on first use).
func (s *Server) view(uri string) *docView {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.views[uri]
	if v == nil {
		v = &docView{tokens: surface.NewTokenResults()}
		s.views[uri] = v
	}
	return v
}
