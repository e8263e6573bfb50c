// Package lsp is chatls as an LSP client of real language servers (gopls,
// rust-analyzer, pyright, typescript-language-server, clangd), for the
// tools diagnostics, symbols, hover, definition and references (SPEC §5).
// One server per language and workspace root, started on first use, kept
// warm, stopped when idle or at exit, started again if it died. The
// JSON-RPC is the project's own stack (sourcegraph/jsonrpc2).
package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/chatls/chatls/internal/fileuri"
	"github.com/chatls/chatls/internal/keyenv"
)

// server is one running language server.
type server struct {
	conn     *jsonrpc2.Conn
	cmd      *exec.Cmd
	root     string
	settings map[string]any

	mu       sync.Mutex
	versions map[string]int    // open documents (URI → version)
	texts    map[string]string // their text as sent
	diags    map[string]published
	changed  chan struct{} // closed and replaced at every publish
	lastUse  time.Time
	dead     chan struct{}
	exit     string // how the process ended, once dead is closed
}

// published is the last diagnostics of a document and when they came.
type published struct {
	version int
	at      time.Time
	list    []diagnostic
}

type diagnostic struct {
	Range    lspRange `json:"range"`
	Severity int      `json:"severity"`
	Source   string   `json:"source"`
	Message  string   `json:"message"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type stdio struct {
	io.ReadCloser
	io.WriteCloser
}

func (s stdio) Close() error {
	s.WriteCloser.Close()
	return s.ReadCloser.Close()
}

// start runs argv in root and initializes it.
func start(ctx context.Context, argv []string, root string, settings map[string]any) (*server, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = root
	cmd.Env = keyenv.Environ()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", argv[0], err)
	}
	s := &server{cmd: cmd, root: root, settings: settings, versions: map[string]int{}, texts: map[string]string{},
		diags: map[string]published{}, changed: make(chan struct{}), dead: make(chan struct{}), lastUse: time.Now()}
	s.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(stdio{out, in}, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(s.handle))
	go func() {
		<-s.conn.DisconnectNotify()
		_ = cmd.Process.Kill()
		if err := cmd.Wait(); err != nil {
			s.exit = err.Error()
		} else {
			s.exit = "exit status 0"
		}
		close(s.dead)
	}()
	rootURI := fileURI(root)
	params := map[string]any{
		"processId": os.Getpid(), "rootUri": rootURI,
		"workspaceFolders": []map[string]any{{"uri": rootURI, "name": "root"}},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"publishDiagnostics": map[string]any{"versionSupport": true},
				"hover":              map[string]any{"contentFormat": []string{"plaintext", "markdown"}},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"synchronization":    map[string]any{"didSave": true},
			},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
		},
	}
	if err := s.conn.Call(ctx, "initialize", params, nil); err != nil {
		s.close()
		return nil, fmt.Errorf("%s did not initialize: %w", argv[0], err)
	}
	if err := s.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// handle answers what servers ask of a client and keeps diagnostics.
func (s *server) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string       `json:"uri"`
			Version     *int         `json:"version"`
			Diagnostics []diagnostic `json:"diagnostics"`
		}
		if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
			s.mu.Lock()
			v := s.versions[p.URI]
			if p.Version != nil {
				v = *p.Version
			}
			s.diags[p.URI] = published{version: v, at: time.Now(), list: p.Diagnostics}
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
		}
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []any `json:"items"`
		}
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		out := make([]any, len(p.Items))
		for i := range out {
			if s.settings != nil {
				out[i] = s.settings
			}
		}
		return out, nil
	case "workspace/workspaceFolders":
		return []map[string]any{{"uri": fileURI(s.root), "name": "root"}}, nil
	}
	return nil, nil // window/workDoneProgress/create, client/registerCapability, …
}

// sync opens the file, or sends its new text, as it is on disk now.
func (s *server) sync(ctx context.Context, path, languageID string) (uri string, version int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	uri = fileURI(path)
	text := string(data)
	s.mu.Lock()
	v, open := s.versions[uri]
	same := open && s.texts[uri] == text
	if !same {
		v++
		s.versions[uri], s.texts[uri] = v, text
	}
	s.lastUse = time.Now()
	s.mu.Unlock()
	switch {
	case same:
		return uri, v, nil
	case !open:
		err = s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": languageID, "version": v, "text": text}})
	default:
		err = s.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"text": text}}})
	}
	return uri, v, err
}

// awaitDiagnostics waits until the server published for the version and
// then stayed quiet for settle, or ctx ends (then the last ones count).
func (s *server) awaitDiagnostics(ctx context.Context, uri string, version int, settle time.Duration) []diagnostic {
	for {
		s.mu.Lock()
		p, ok := s.diags[uri]
		changed := s.changed
		s.mu.Unlock()
		wait := settle
		if ok && p.version >= version {
			wait = settle - time.Since(p.at)
			if wait <= 0 {
				return p.list
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-changed:
		case <-t.C:
			if ok && p.version >= version {
				t.Stop()
				return p.list
			}
		case <-ctx.Done():
			t.Stop()
			return p.list
		case <-s.dead:
			t.Stop()
			return p.list
		}
		t.Stop()
	}
}

// alive says whether the server can still answer: its connection is up
// (a hung server chatls gave up on is closed at once, before it exits).
func (s *server) alive() bool {
	select {
	case <-s.conn.DisconnectNotify():
		return false
	default:
		return true
	}
}

// diedWithin bounds how long a failed request waits to learn whether the
// process is gone: jsonrpc2 fails pending calls just before it reports the
// disconnect.
const diedWithin = time.Second

// died says whether the process ended (waiting briefly for the news after
// a request failed).
func (s *server) died() bool {
	t := time.NewTimer(diedWithin)
	defer t.Stop()
	select {
	case <-s.dead:
		return true
	case <-t.C:
		return false
	}
}

// close asks the server to shut down, then ends it.
func (s *server) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if s.alive() {
		_ = s.conn.Call(ctx, "shutdown", nil, nil)
		_ = s.conn.Notify(ctx, "exit", nil)
	}
	_ = s.conn.Close()
	<-s.dead
}

func fileURI(path string) string { return fileuri.FromPath(path) }

// uriPath is the file path of a file URI ("" for other schemes).
func uriPath(uri string) string { return fileuri.ToPath(uri) }
