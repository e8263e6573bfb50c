// Package mcp makes the tools of MCP servers (stdio or streamable HTTP)
// available as chatls tools named SERVER:tool (SPEC §5 "Custom tools"),
// through the official Go SDK.
package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/plugin/stderrlog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// reloadTimeout bounds a tools/list after a list_changed notification.
const reloadTimeout = 30 * time.Second

// Source is one configured MCP server. It implements tools.Source.
type Source struct {
	name   string
	cfg    config.MCPServer
	logger *zap.Logger
	stderr *stderrlog.Writer
	client *sdk.Client
	// newTransport makes the transport for each (re)connection; tests swap
	// in in-memory transports.
	newTransport func() (sdk.Transport, error)

	connectMu sync.Mutex // one connection attempt at a time
	reloadMu  sync.Mutex // one tools/list refresh at a time

	mu        sync.Mutex
	sess      *sdk.ClientSession
	connected bool // a session existed before: the next one is a reconnect
	tools     []tools.Tool
	toolsGen  int  // bumped by every reload
	loading   bool // a Load is listing tools: it, not onChange, reports reloads
	onChange  func([]tools.Tool)
	closed    bool
}

var _ tools.Source = (*Source)(nil)

// NewSource prepares the MCP server called name; nothing connects before Load.
func NewSource(name string, cfg config.MCPServer, logger *zap.Logger) *Source {
	if logger == nil {
		logger = zap.NewNop()
	}
	logger = logger.With(zap.String("mcp", name))
	s := &Source{name: name, cfg: cfg, logger: logger, stderr: stderrlog.New(logger)}
	s.newTransport = func() (sdk.Transport, error) { return newTransport(name, cfg, s.stderr) }
	s.client = sdk.NewClient(&sdk.Implementation{Name: "chatls"}, &sdk.ClientOptions{
		// chatls offers no roots, sampling or elicitation.
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(_ context.Context, req *sdk.ToolListChangedRequest) {
			// Not on the notification goroutine: the reload makes a request.
			go s.reload(req.Session)
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			s.logger.Info("server log", zap.String("level", string(req.Params.Level)), zap.Any("data", req.Params.Data))
		},
	})
	return s
}

// Name is the source name the registry knows, equal to Definition.Source.
func (s *Source) Name() string { return "mcp:" + s.name }

// OnToolsChanged registers fn to receive the new tool list after the server
// sends notifications/tools/list_changed (typically registry.Replace).
func (s *Source) OnToolsChanged(fn func([]tools.Tool)) {
	s.mu.Lock()
	s.onChange = fn
	s.mu.Unlock()
}

// Load connects (once) and lists the server's tools. The connection
// outlives ctx.
func (s *Source) Load(ctx context.Context) ([]tools.Tool, error) {
	s.mu.Lock()
	s.loading = true
	gen := s.toolsGen
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.loading = false
		s.mu.Unlock()
	}()
	sess, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.listTools(ctx, sess)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.toolsGen != gen {
		// A list_changed reload finished meanwhile; its list is newer, and
		// returning it keeps the registry from taking our stale one last.
		return s.tools, nil
	}
	s.tools = list
	return list, nil
}

// Close ends the session; a stdio server gets its stdin closed, then SIGTERM.
func (s *Source) Close() error {
	s.mu.Lock()
	s.closed = true
	sess := s.sess
	s.sess = nil
	s.mu.Unlock()
	if sess != nil {
		return sess.Close()
	}
	return nil
}

// session returns the live session, connecting (again) if there is none.
func (s *Source) session(ctx context.Context) (*sdk.ClientSession, error) {
	if sess, err := s.current(); sess != nil || err != nil {
		return sess, err
	}
	s.connectMu.Lock()
	defer s.connectMu.Unlock()
	if sess, err := s.current(); sess != nil || err != nil {
		return sess, err
	}
	transport, err := s.newTransport()
	if err != nil {
		return nil, err
	}
	sess, err := s.client.Connect(ctx, transport, nil)
	if err != nil {
		msg := fmt.Sprintf("cannot connect to MCP server %s: %v", s.name, err)
		if last := s.stderr.LastLine(); last != "" {
			msg += fmt.Sprintf(" (last stderr line: %q)", last)
		}
		return nil, fmt.Errorf("%s", msg)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sess.Close()
		return nil, s.closedError()
	}
	reconnect := s.connected
	s.sess, s.connected = sess, true
	s.mu.Unlock()
	go s.watch(sess)
	if reconnect {
		// The server may have changed while we were away.
		go s.reload(sess)
	}
	return sess, nil
}

func (s *Source) current() (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, s.closedError()
	}
	return s.sess, nil
}

func (s *Source) closedError() error {
	return fmt.Errorf("MCP server %s is stopped (chatls is shutting down or the config changed)", s.name)
}

// watch forgets a session once its connection ends, so the next call
// reconnects (a stdio server that crashed gets restarted).
func (s *Source) watch(sess *sdk.ClientSession) {
	err := sess.Wait()
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
	}
	closed := s.closed
	s.mu.Unlock()
	if !closed {
		s.logger.Warn("MCP server connection ended; reconnecting on the next call", zap.Error(err))
	}
}

// currentTools is the latest tool list (after Load and any reload).
func (s *Source) currentTools() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// connectionLost explains a call that ended with the connection, with the
// server's last words when it is a process.
func (s *Source) connectionLost(sess *sdk.ClientSession, tool string) string {
	ended := make(chan error, 1)
	go func() { ended <- sess.Wait() }()
	var exit error
	select {
	case exit = <-ended: // the process is reaped and its stderr read
	case <-time.After(500 * time.Millisecond):
	}
	msg := fmt.Sprintf("MCP server %s closed the connection while running %s", s.name, tool)
	if exit != nil {
		msg += fmt.Sprintf(" (%v)", exit)
	}
	if last := s.stderr.LastLine(); last != "" {
		msg += fmt.Sprintf("; last stderr line: %q", last)
	}
	return msg + "; chatls reconnects on the next call"
}

func (s *Source) listTools(ctx context.Context, sess *sdk.ClientSession) ([]tools.Tool, error) {
	var list []tools.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("MCP server %s: listing tools: %w", s.name, err)
		}
		list = append(list, s.newTool(t))
	}
	return list, nil
}

// reload refreshes the tool list and hands it to the OnToolsChanged callback.
func (s *Source) reload(sess *sdk.ClientSession) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
	defer cancel()
	list, err := s.listTools(ctx, sess)
	if err != nil {
		s.logger.Warn("reloading the tool list failed", zap.Error(err))
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.tools = list
	s.toolsGen++
	onChange := s.onChange
	if s.loading {
		onChange = nil // Load returns this list itself
	}
	s.mu.Unlock()
	s.logger.Info("tool list changed", zap.Int("tools", len(list)))
	if onChange != nil {
		onChange(list)
	}
}
