package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/internal/testfs"
)

// lineEditor is the editor of the "as users feel it" benchmarks
// (feel_bench_test.go): it keeps each document as lines, as an editor's
// buffer does, so an edit at the top of a 10 MB document costs the client
// one line, not a copy of 10 MB (lspclient keeps one string and splices
// it, which is the client's cost in the other benchmarks). It applies the
// server's workspace/applyEdit, echoes it with a didChange, and tells a
// hook when an edit arrives.
type lineEditor struct {
	tb   testing.TB
	ctx  context.Context
	conn *jsonrpc2.Conn
	cmd  *exec.Cmd
	ws   string
	// started is when the process was started (GODEBUG=gctrace's clock).
	started time.Time

	// sendMu makes "apply to the buffer, then send didChange" atomic.
	sendMu sync.Mutex
	mu     sync.Mutex
	docs   map[string]*lineDoc
	// onEdit, when set, is called with the arrival time of every
	// workspace/applyEdit and its edits (before they are applied).
	onEdit func(at time.Time, edits []lspclient.TextEdit)
	// changed is signalled after every applied server edit.
	changed chan struct{}
}

type lineDoc struct {
	lines   []string // without their "\n"
	version int32
}

// startLineEditor starts the real binary with a fresh workspace and the
// user config cfg (may be empty), initialised.
func startLineEditor(tb testing.TB, cfg string, env ...string) *lineEditor {
	tb.Helper()
	base := tb.TempDir()
	ws, state, config := filepath.Join(base, "ws"), filepath.Join(base, "state"), filepath.Join(base, "config")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		tb.Fatal(err)
	}
	if cfg != "" {
		testfs.Write(tb, filepath.Join(config, "chatls", "config.toml"), cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	tb.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, binary)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+config, "TMPDIR="+base)
	cmd.Env = append(cmd.Env, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	e := &lineEditor{tb: tb, ctx: ctx, cmd: cmd, ws: ws, started: started, docs: map[string]*lineDoc{}, changed: make(chan struct{}, 1)}
	stream := jsonrpc2.NewBufferedStream(linePipe{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{})
	e.conn = jsonrpc2.NewConn(ctx, stream, jsonrpc2.HandlerWithError(e.handle), jsonrpc2.SetLogger(quietLog{}))
	tb.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.conn.Call(sctx, "shutdown", nil, nil)
		_ = e.conn.Notify(sctx, "exit", nil)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-sctx.Done():
			_ = cmd.Process.Kill()
		}
		if tb.Failed() {
			out := e.stderr()
			tb.Logf("server stderr (tail):\n%s", out[max(0, len(out)-4096):])
		}
	})
	var result any
	if err := e.conn.Call(ctx, "initialize", map[string]any{
		"processId": nil,
		"capabilities": map[string]any{
			"general":   map[string]any{"positionEncodings": []string{"utf-16"}},
			"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}},
			"window":    map[string]any{"workDoneProgress": true},
		},
		"clientInfo":       map[string]any{"name": "chatls-lineeditor"},
		"rootUri":          lspclient.PathURI(ws),
		"workspaceFolders": []any{map[string]any{"uri": lspclient.PathURI(ws), "name": "root"}},
	}, &result); err != nil {
		tb.Fatal(err)
	}
	if err := e.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		tb.Fatal(err)
	}
	return e
}

type linePipe struct {
	io.ReadCloser
	io.WriteCloser
}

func (p linePipe) Close() error {
	_ = p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

type quietLog struct{}

func (quietLog) Printf(string, ...any) {}

type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 1<<20 {
		return len(p), nil
	}
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func (e *lineEditor) pid() int { return e.cmd.Process.Pid }

// stderr is what the server wrote to stderr so far (the first MB).
func (e *lineEditor) stderr() string { return e.cmd.Stderr.(*lockedWriter).String() }

// open writes text to name in the workspace and opens it.
func (e *lineEditor) open(name, text string) string {
	e.tb.Helper()
	path := filepath.Join(e.ws, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		e.tb.Fatal(err)
	}
	uri := lspclient.PathURI(path)
	e.mu.Lock()
	e.docs[uri] = &lineDoc{lines: strings.Split(text, "\n"), version: 1}
	e.mu.Unlock()
	if err := e.conn.Notify(e.ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "chat", "version": 1, "text": text},
	}); err != nil {
		e.tb.Fatal(err)
	}
	return uri
}

// hover asks for the hover at 0:0: the ordered dispatcher answers it only
// after every change sent before it was applied.
func (e *lineEditor) hover(uri string) {
	var out any
	if err := e.conn.Call(e.ctx, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 0},
	}, &out); err != nil {
		e.tb.Fatal(err)
	}
}

// change applies one edit to the buffer and sends it as a didChange.
func (e *lineEditor) change(uri string, edit lspclient.TextEdit) {
	e.sendMu.Lock()
	defer e.sendMu.Unlock()
	e.mu.Lock()
	d := e.docs[uri]
	d.apply(edit)
	d.version++
	v := d.version
	e.mu.Unlock()
	if err := e.conn.Notify(e.ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []any{map[string]any{"range": edit.Range, "text": edit.NewText}},
	}); err != nil {
		e.tb.Fatal(err)
	}
}

// end is the position after the last character of the document.
func (e *lineEditor) end(uri string) lspclient.Position {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.docs[uri]
	last := len(d.lines) - 1
	return lspclient.Position{Line: last, Character: utf16Len(d.lines[last])}
}

// text is the whole document (for checks; it joins the lines).
func (e *lineEditor) text(uri string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.docs[uri].lines, "\n")
}

// tail is the document's last n lines.
func (e *lineEditor) tail(uri string, n int) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	l := e.docs[uri].lines
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// waitTail waits until the document's last lines satisfy ok.
func (e *lineEditor) waitTail(uri string, lines int, timeout time.Duration, ok func(string) bool) error {
	deadline := time.After(timeout)
	for !ok(e.tail(uri, lines)) {
		select {
		case <-e.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			return fmt.Errorf("timed out; the document ends:\n%s", e.tail(uri, lines))
		}
	}
	return nil
}

func (e *lineEditor) command(name string, args map[string]any) (map[string]any, error) {
	var out map[string]any
	err := e.conn.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{args}}, &out)
	return out, err
}

func (e *lineEditor) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "workspace/applyEdit":
		at := time.Now()
		var p applyEditParamsLines
		if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "bad params"}
		}
		for _, dc := range p.Edit.DocumentChanges {
			if e.onEdit != nil {
				e.onEdit(at, dc.Edits)
			}
			if reason := e.applyServerEdit(dc.TextDocument.URI, dc.TextDocument.Version, dc.Edits); reason != "" {
				return map[string]any{"applied": false, "failureReason": reason}, nil
			}
		}
		select {
		case e.changed <- struct{}{}:
		default:
		}
		return map[string]any{"applied": true}, nil
	case "workspace/configuration":
		return []any{nil}, nil
	}
	if req.Notif {
		return nil, nil
	}
	return nil, nil // window/workDoneProgress/create and the refreshes
}

type applyEditParamsLines struct {
	Edit struct {
		DocumentChanges []struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int32 `json:"version"`
			} `json:"textDocument"`
			Edits []lspclient.TextEdit `json:"edits"`
		} `json:"documentChanges"`
	} `json:"edit"`
}

// applyServerEdit applies the server's edits (last first) and sends the
// didChange an editor sends for them; "" or why it refused.
func (e *lineEditor) applyServerEdit(uri string, version *int32, edits []lspclient.TextEdit) string {
	e.sendMu.Lock()
	defer e.sendMu.Unlock()
	e.mu.Lock()
	d := e.docs[uri]
	if d == nil {
		e.mu.Unlock()
		return "not open"
	}
	if version != nil && *version != d.version {
		e.mu.Unlock()
		return "version mismatch"
	}
	sorted := slices.Clone(edits)
	slices.SortFunc(sorted, func(a, b lspclient.TextEdit) int {
		if a.Range.Start.Line != b.Range.Start.Line {
			return b.Range.Start.Line - a.Range.Start.Line
		}
		return b.Range.Start.Character - a.Range.Start.Character
	})
	changes := make([]any, 0, len(sorted))
	for _, ed := range sorted {
		d.apply(ed)
		changes = append(changes, map[string]any{"range": ed.Range, "text": ed.NewText})
	}
	d.version++
	v := d.version
	e.mu.Unlock()
	if err := e.conn.Notify(e.ctx, "textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": v}, "contentChanges": changes,
	}); err != nil {
		return err.Error()
	}
	return ""
}

// apply replaces the edit's range (UTF-16 positions) in the lines.
func (d *lineDoc) apply(ed lspclient.TextEdit) {
	s, en := ed.Range.Start, ed.Range.End
	head := d.lines[s.Line][:utf16Offset(d.lines[s.Line], s.Character)]
	tail := d.lines[en.Line][utf16Offset(d.lines[en.Line], en.Character):]
	repl := strings.Split(head+ed.NewText+tail, "\n")
	if len(repl) == 1 && s.Line == en.Line {
		d.lines[s.Line] = repl[0]
		return
	}
	d.lines = slices.Replace(d.lines, s.Line, en.Line+1, repl...)
}

// utf16Offset is the byte offset of UTF-16 column col in line (clamped).
func utf16Offset(line string, col int) int {
	units := 0
	for i, r := range line {
		if units >= col {
			return i
		}
		units += len(utf16.Encode([]rune{r}))
	}
	return len(line)
}

func utf16Len(line string) int {
	n := 0
	for _, r := range line {
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}
