// Package lspclient is a scripted editor: it speaks LSP to a chatls process
// over pipes, keeps the documents it opened, applies the server's
// workspace/applyEdit requests with version checks (refusing stale ones as a
// real editor does), sends the matching didChange, and records diagnostics,
// progress and messages. Tests and `chatls demo` wait on its events instead
// of sleeping.
package lspclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Options shape the client's behaviour and advertised capabilities.
type Options struct {
	// Encoding is the position encoding to offer ("utf-16" when empty).
	Encoding string
	// NoProgress hides window.workDoneProgress (like eglot 1.9).
	NoProgress bool
	// InitializationOptions is sent as is.
	InitializationOptions any
	// Configuration answers workspace/configuration for section "chatls".
	Configuration any
	// RootDir is the workspace folder.
	RootDir string
	// BeforeApply, when set, runs before an applyEdit is checked: tests use
	// it to type concurrently so the server's edit becomes stale.
	BeforeApply func(c *Client)
	// NeverReplyToApplyEdit applies edits but never answers (Vim's ALE).
	NeverReplyToApplyEdit bool
	// SilentApply applies edits to the client's copy but neither answers
	// nor sends the didChange (Vim's ALE for seconds): Flush sends the
	// whole text later.
	SilentApply bool
	// DropApplyEdit, when set, neither applies nor answers the applyEdits
	// whose label it accepts (an edit lost on its way).
	DropApplyEdit func(label string) bool
	// Echo is the shape of the didChange that reports an applied edit.
	Echo EchoShape
	// DelayEcho sends that didChange this long after the reply (eglot
	// blocked on a request of its own sends its changes when it returns).
	DelayEcho time.Duration
	// ApplyDelay, when set, is how long the client is busy before it
	// applies (and answers) its n-th applyEdit, from 1: VS Code on a
	// loaded machine took up to 4.3 s for one.
	ApplyDelay func(n int) time.Duration
	// RefuseEdit, when set, refuses every applyEdit whose label it accepts
	// (a read-only buffer): the edit is not applied and the reply says so.
	RefuseEdit func(label string) bool
}

// Document is the client's copy of an open document.
type Document struct {
	URI     string
	Text    string
	Version int32
}

// Event is something the server did, in order.
type Event struct {
	Kind   string // "applyEdit", "refused", "diagnostics", "progress", "message", "refresh", "status"
	URI    string
	Label  string
	Before string // document text before an applied edit
	After  string
	Data   json.RawMessage
}

// Client is one connection to a server.
type Client struct {
	opts  Options
	conn  *jsonrpc2.Conn
	cmd   *exec.Cmd
	stdin io.Closer // the server's stdin, when started by Start
	// shutdown is set once Shutdown began (quietAfterShutdown).
	shutdown atomic.Bool
	// applies counts the applyEdits received (ApplyDelay).
	applies atomic.Int32

	// sendMu makes "apply to our copy, then send didChange" atomic, as in an
	// editor: no other change may be sent between the two, or the server
	// would get versions out of order.
	sendMu      sync.Mutex
	delayed     delayedEchoes
	mu          sync.Mutex
	cond        *sync.Cond
	docs        map[string]*Document
	events      []Event
	diagnostics map[string][]Diagnostic
	progress    map[string][]string // token → kinds
	closed      bool
	enc         string
}

// Diagnostic as published by the server.
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity int    `json:"severity"`
	Code     string `json:"code"`
	Source   string `json:"source"`
	Message  string `json:"message"`
}

// Position and Range are LSP positions in the negotiated encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Start launches the server binary with args and connects to it.
func Start(ctx context.Context, binary string, args []string, env []string, opts Options) (*Client, error) {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = &logTail{}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	c := Connect(ctx, pipe{stdout, stdin}, opts)
	c.cmd = cmd
	c.stdin = stdin
	return c, nil
}

// CloseInput closes the server's stdin only, as an editor that dies does:
// the server sees end of file while its stdout is still read.
func (c *Client) CloseInput() error {
	if c.stdin == nil {
		return fmt.Errorf("the server was not started by Start")
	}
	return c.stdin.Close()
}

// Connect speaks LSP over an existing stream (e.g. net.Pipe to an in-process server).
func Connect(ctx context.Context, rwc io.ReadWriteCloser, opts Options) *Client {
	c := &Client{opts: opts, docs: map[string]*Document{}, diagnostics: map[string][]Diagnostic{}, progress: map[string][]string{}}
	c.cond = sync.NewCond(&c.mu)
	stream := jsonrpc2.NewBufferedStream(rwc, jsonrpc2.VSCodeObjectCodec{})
	// Messages are handled in order on the read loop, as an editor does: a
	// $/progress sent before an applyEdit is recorded before it. The handler
	// never calls the server and waits, so this cannot deadlock.
	c.conn = jsonrpc2.NewConn(ctx, stream, handler{c}, jsonrpc2.SetLogger(quietAfterShutdown{c}))
	go func() {
		<-c.conn.DisconnectNotify()
		c.mu.Lock()
		c.closed = true
		c.cond.Broadcast()
		c.mu.Unlock()
	}()
	return c
}

// Process is the server process, when started by Start.
func (c *Client) Process() *exec.Cmd { return c.cmd }

// Stderr is what the server wrote to stderr so far (bounded).
func (c *Client) Stderr() string {
	if c.cmd == nil {
		return ""
	}
	return c.cmd.Stderr.(*logTail).String()
}

// Initialize runs initialize + initialized and returns the server's result.
func (c *Client) Initialize(ctx context.Context) (map[string]any, error) {
	enc := c.opts.Encoding
	if enc == "" {
		enc = "utf-16"
	}
	caps := map[string]any{
		"general": map[string]any{"positionEncodings": []string{enc}},
		"workspace": map[string]any{
			"applyEdit":     true,
			"configuration": c.opts.Configuration != nil,
			"workspaceEdit": map[string]any{"documentChanges": true},
			"inlayHint":     map[string]any{"refreshSupport": true},
		},
		"window": map[string]any{"workDoneProgress": !c.opts.NoProgress},
	}
	params := map[string]any{
		"processId":             nil,
		"capabilities":          caps,
		"initializationOptions": c.opts.InitializationOptions,
		"clientInfo":            map[string]any{"name": "chatls-lspclient"},
	}
	if c.opts.RootDir != "" {
		params["workspaceFolders"] = []any{map[string]any{"uri": PathURI(c.opts.RootDir), "name": "root"}}
		params["rootUri"] = PathURI(c.opts.RootDir)
	}
	var result map[string]any
	if err := c.conn.Call(ctx, "initialize", params, &result); err != nil {
		return nil, err
	}
	if caps, ok := result["capabilities"].(map[string]any); ok {
		if e, ok := caps["positionEncoding"].(string); ok {
			c.mu.Lock()
			c.enc = e
			c.mu.Unlock()
		}
	}
	return result, c.conn.Notify(ctx, "initialized", map[string]any{})
}

// quietAfterShutdown logs what jsonrpc2 reports, except after Shutdown:
// then exec.Cmd.Wait closes the server's stdout under the read loop, and
// "file already closed" is expected.
type quietAfterShutdown struct{ c *Client }

func (q quietAfterShutdown) Printf(format string, v ...any) {
	if !q.c.shutdown.Load() {
		log.Printf(format, v...)
	}
}

// Shutdown sends shutdown and exit and waits for the process to end.
func (c *Client) Shutdown(ctx context.Context) error {
	c.shutdown.Store(true)
	_ = c.conn.Call(ctx, "shutdown", nil, nil)
	_ = c.conn.Notify(ctx, "exit", nil)
	if c.cmd != nil {
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			_ = c.cmd.Process.Kill()
			return ctx.Err()
		}
	}
	return c.conn.Close()
}

// Call sends a request and decodes the result.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	w, err := c.dispatch(ctx, method, params)
	if err != nil {
		return err
	}
	return w.Wait(ctx, result)
}

// dispatch writes a request after any didChange of an edit already applied
// to our copy: a test that saw the edited text and then asks about it must
// ask about that text, as in an editor, where the buffer change and its
// didChange come before the next request. Only the write holds sendMu.
func (c *Client) dispatch(ctx context.Context, method string, params any, opts ...jsonrpc2.CallOption) (jsonrpc2.Waiter, error) {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return c.conn.DispatchCall(ctx, method, params, opts...)
}

// Send sends a request with a chosen id and returns once it is written, so
// a test can cancel it with $/cancelRequest; wait collects the answer.
func (c *Client) Send(ctx context.Context, id uint64, method string, params any) (wait func(result any) error, err error) {
	w, err := c.dispatch(ctx, method, params, jsonrpc2.PickID(jsonrpc2.ID{Num: id}))
	if err != nil {
		return nil, err
	}
	return func(result any) error { return w.Wait(ctx, result) }, nil
}

// Notify sends a notification, after any didChange already due (dispatch).
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return c.conn.Notify(ctx, method, params)
}

// Events returns a copy of everything recorded so far.
func (c *Client) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

// WaitFor blocks until cond (called under the client's lock with the
// current state) is true, the server goes away, or timeout passes.
func (c *Client) WaitFor(timeout time.Duration, what string, cond func(*State) bool) error {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if cond(&State{c: c}) {
			return nil
		}
		if c.closed {
			return fmt.Errorf("waiting for %s: the server went away", what)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for %s: timed out after %s", what, timeout)
		}
		c.cond.Wait()
	}
}

// State is the view WaitFor conditions get (the lock is held).
type State struct{ c *Client }

// Text is the current text of a document.
func (s *State) Text(uri string) string {
	if d := s.c.docs[uri]; d != nil {
		return d.Text
	}
	return ""
}

// Diagnostics are the last published diagnostics of a document.
func (s *State) Diagnostics(uri string) []Diagnostic { return s.c.diagnostics[uri] }

// Events are all events so far.
func (s *State) Events() []Event { return s.c.events }

// ProgressKinds are the $/progress kinds seen per token.
func (s *State) ProgressKinds() map[string][]string { return s.c.progress }

// Doc returns a copy of the client's document.
func (c *Client) Doc(uri string) Document {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.docs[uri]; d != nil {
		return *d
	}
	return Document{}
}

// Diagnostics returns the last published diagnostics of a document.
func (c *Client) Diagnostics(uri string) []Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Diagnostic(nil), c.diagnostics[uri]...)
}

func (c *Client) record(e Event) {
	c.events = append(c.events, e)
	c.cond.Broadcast()
}

type pipe struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipe) Close() error {
	_ = p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

// logTail keeps the last 64 KB of the server's stderr.
type logTail struct {
	mu  sync.Mutex
	buf []byte
}

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > 64<<10 {
		l.buf = l.buf[len(l.buf)-64<<10:]
	}
	return len(p), nil
}

func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf)
}

// WaitForCtx is WaitFor until ctx ends instead of a timeout.
func (c *Client) WaitForCtx(ctx context.Context, what string, cond func(*State) bool) error {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if cond(&State{c: c}) {
			return nil
		}
		if c.closed {
			return fmt.Errorf("waiting for %s: the server went away", what)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
		c.cond.Wait()
	}
}
