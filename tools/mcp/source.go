// Package mcp makes the tools of MCP servers (stdio or streamable HTTP)
// available as chatls tools named SERVER:tool (SPEC §5 "Custom tools"),
// through the official Go SDK.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/procsup"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/plugin"
	"github.com/chatls/chatls/tools/plugin/stderrlog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// reloadTimeout bounds a tools/list after a list_changed notification, and
// each background retry of a failed first load.
const reloadTimeout = 30 * time.Second

// Retries of a failed first load: the plugins' restart backoff.
const (
	retryMin = 200 * time.Millisecond
	retryMax = 30 * time.Second
)

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

	connectMu sync.Mutex     // one connection attempt at a time
	cleanups  sync.WaitGroup // abandoned connection attempts being cleaned up
	reloadMu  sync.Mutex     // one tools/list refresh at a time

	retryMin, retryMax time.Duration

	mu       sync.Mutex
	sess     *sdk.ClientSession
	group    *groupGuard // the stdio server process of sess, if any
	retrying bool        // a failed first load is being retried
	loaded   bool        // a Load succeeded once
	// closedCtx is cancelled by Close: it aborts a connection attempt in flight.
	closedCtx   context.Context
	cancelClose context.CancelFunc
	connected   bool // a session existed before: the next one is a reconnect
	tools       []tools.Tool
	toolsGen    int  // bumped by every reload
	loading     bool // a Load is listing tools: it, not onChange, reports reloads
	onChange    func([]tools.Tool)
	closed      bool
}

var _ tools.Source = (*Source)(nil)

// NewSource prepares the MCP server called name; nothing connects before Load.
func NewSource(name string, cfg config.MCPServer, logger *zap.Logger) *Source {
	if logger == nil {
		logger = zap.NewNop()
	}
	logger = logger.With(zap.String("mcp", name))
	s := &Source{name: name, cfg: cfg, logger: logger, stderr: stderrlog.New(logger),
		retryMin: retryMin, retryMax: retryMax}
	s.closedCtx, s.cancelClose = context.WithCancel(context.Background())
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
// outlives ctx. If the first load fails, chatls keeps retrying in the
// background with backoff, and the tools reach the registry through
// OnToolsChanged once a retry succeeds.
func (s *Source) Load(ctx context.Context) ([]tools.Tool, error) {
	list, err := s.load(ctx)
	if err == nil {
		return list, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, s.closedError()
	}
	var cfgErr configError
	if !s.loaded && !errors.As(err, &cfgErr) {
		if !s.retrying {
			s.retrying = true
			go s.retryLoad()
		}
		err = fmt.Errorf("%w"+plugin.RetryNote, err)
	}
	return nil, err
}

func (s *Source) load(ctx context.Context) ([]tools.Tool, error) {
	_, shown := plugin.LoadLimit(ctx, reloadTimeout)
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
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, s.withStderr(fmt.Sprintf("MCP server %s did not answer initialize within %s", s.name, shown))
		}
		return nil, err
	}
	list, err := s.listTools(ctx, sess)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("MCP server %s did not list its tools within %s", s.name, shown)
		}
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, s.closedError()
	}
	s.loaded = true
	if s.toolsGen != gen {
		// A list_changed reload finished meanwhile; its list is newer, and
		// returning it keeps the registry from taking our stale one last.
		return s.tools, nil
	}
	s.tools = list
	return list, nil
}

// retryLoad retries a failed first load with backoff until it succeeds
// (then the tools go to OnToolsChanged) or Close.
func (s *Source) retryLoad() {
	delay := s.retryMin
	for {
		select {
		case <-time.After(delay):
		case <-s.closedCtx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
		list, err := s.load(ctx)
		cancel()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		// Logged under s.mu: once Close has returned, nothing logs.
		if err != nil {
			s.logger.Warn("loading the MCP server failed again", zap.Error(err))
			s.mu.Unlock()
			delay = min(2*delay, s.retryMax)
			continue
		}
		s.retrying = false
		onChange := s.onChange
		s.logger.Info("MCP server loaded after retrying", zap.Int("tools", len(list)))
		s.mu.Unlock()
		if onChange != nil {
			onChange(list)
		}
		return
	}
}

func (s *Source) withStderr(msg string) error {
	if last := s.stderr.LastLine(); last != "" {
		msg += fmt.Sprintf(" (last stderr line: %q)", last)
	}
	return errors.New(msg)
}

// Close ends the session; a stdio server gets its stdin closed, then
// SIGTERM, then SIGKILL, and whatever it spawned is killed with its group.
func (s *Source) Close() error {
	s.mu.Lock()
	s.closed = true
	s.cancelClose()
	sess, group := s.sess, s.group
	s.sess, s.group = nil, nil
	s.mu.Unlock()
	var err error
	if sess != nil {
		err = sess.Close()
	}
	group.stop()
	s.cleanups.Wait()
	return err
}

// groupGuard kills a stdio server's process group once the server process
// has exited, however that happens, so nothing it spawned outlives it.
type groupGuard struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func guardGroup(t sdk.Transport) *groupGuard {
	ct, ok := t.(*sdk.CommandTransport)
	if !ok || ct.Command.Process == nil {
		return nil
	}
	g := &groupGuard{cmd: ct.Command, done: make(chan struct{})}
	go func() {
		defer close(g.done)
		if procsup.WaitLeader(g.cmd) {
			procsup.Kill(g.cmd)
		}
	}()
	return g
}

// stop kills the group now and waits for the guard (nil-safe).
func (g *groupGuard) stop() {
	if g == nil {
		return
	}
	procsup.Kill(g.cmd)
	<-g.done
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
	// Close must not wait for a server that never answers initialize.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.closedCtx, cancel)()
	type connected struct {
		sess *sdk.ClientSession
		err  error
	}
	done := make(chan connected, 1)
	go func() {
		sess, err := s.client.Connect(ctx, transport, nil)
		done <- connected{sess, err}
	}()
	var r connected
	select {
	case r = <-done:
	case <-ctx.Done():
		// The answer is due now: the SDK's cleanup of a server that never
		// answered (close stdin, wait, SIGTERM) finishes in the background,
		// and Close waits for it.
		s.cleanups.Go(func() {
			r := <-done
			if r.sess != nil {
				r.sess.Close()
			}
			guardGroup(transport).stop()
		})
		return nil, ctx.Err()
	}
	sess, err := r.sess, r.err
	group := guardGroup(transport)
	if err != nil {
		group.stop()
		return nil, s.withStderr(fmt.Sprintf("cannot connect to MCP server %s: %v", s.name, err))
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sess.Close()
		group.stop()
		return nil, s.closedError()
	}
	reconnect := s.connected
	s.sess, s.group, s.connected = sess, group, true
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
		s.sess, s.group = nil, nil
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
