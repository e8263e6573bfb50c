// Package e2e drives the real chatls binary over stdio pipes with a scripted
// editor (internal/lspclient) that applies edits and enforces versions.
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/internal/testfs"
)

// binary is the chatls executable built once for all tests.
var binary string

func TestMain(m *testing.M) {
	// CHATLS_E2E_BIN runs the tests against a prebuilt server, e.g. to
	// compare two builds in alternating benchmark runs
	// (docs/performance.md).
	if bin := os.Getenv("CHATLS_E2E_BIN"); bin != "" {
		binary = bin
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "chatls-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "chatls")
	args := []string{"build", "-o", binary}
	// The binary the README installs: static (CGO_ENABLED=0).
	env := append(os.Environ(), "CGO_ENABLED=0")
	if os.Getenv("CHATLS_E2E_RACE") != "" {
		// Race-check the server itself, not only the test process (the
		// race detector needs cgo).
		args, env = append(args, "-race"), os.Environ()
	}
	build := exec.Command("go", append(args, "../cmd/chatls")...)
	build.Env = env
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building chatls:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// session is one server process with its own workspace, state and config.
type session struct {
	t     testing.TB
	c     *lspclient.Client
	ws    string // workspace root
	state string // XDG_STATE_HOME
	cfg   string // XDG_CONFIG_HOME
	ctx   context.Context
}

type sessionOptions struct {
	lspclient.Options
	// state reuses a state directory (restart tests).
	state string
	ws    string
	// userConfig and workspaceConfig, when not empty, are written to
	// $XDG_CONFIG_HOME/chatls/config.toml and the workspace's .chatls.toml
	// before the server starts.
	userConfig, workspaceConfig string
	// env is added to the server's environment.
	env []string
}

// userConfigPath is the user config file of the session's server.
func (s *session) userConfigPath() string { return filepath.Join(s.cfg, "chatls", "config.toml") }

// sessionLifetime bounds a session's server: the test binary's own
// deadline (go test -timeout) less a margin for its cleanup and log, and at
// least 2 minutes. Not a fixed 2 minutes: a test of many rounds (the
// journal race's 100) outlived it on a loaded machine, and its server was
// killed under it. Every wait of a test has its own bound besides.
func sessionLifetime(t testing.TB) time.Duration {
	const least, margin = 2 * time.Minute, 30 * time.Second
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, set := d.Deadline(); set {
			return max(time.Until(end)-margin, least)
		}
	}
	return least
}

func start(t testing.TB, o sessionOptions) *session {
	t.Helper()
	base := t.TempDir()
	s := &session{t: t, ws: o.ws, state: o.state, cfg: filepath.Join(base, "config")}
	if s.ws == "" {
		s.ws = filepath.Join(base, "ws")
	}
	if err := os.MkdirAll(s.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if o.userConfig != "" {
		testfs.Write(t, s.userConfigPath(), o.userConfig)
	}
	if o.workspaceConfig != "" {
		testfs.Write(t, filepath.Join(s.ws, ".chatls.toml"), o.workspaceConfig)
	}
	if s.state == "" {
		s.state = filepath.Join(base, "state")
	}
	o.RootDir = s.ws
	env := append(os.Environ(), "XDG_STATE_HOME="+s.state, "XDG_CONFIG_HOME="+s.cfg, "TMPDIR="+filepath.Join(base))
	env = append(env, o.env...)
	ctx, cancel := context.WithTimeout(context.Background(), sessionLifetime(t))
	t.Cleanup(cancel)
	s.ctx = ctx
	c, err := lspclient.Start(ctx, binary, []string{"--log-level", "debug"}, env, o.Options)
	if err != nil {
		t.Fatal(err)
	}
	s.c = c
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Shutdown(sctx)
		if strings.Contains(c.Stderr(), "WARNING: DATA RACE") {
			t.Error("the server reported a data race (CHATLS_E2E_RACE)")
		}
		if t.Failed() {
			t.Logf("server stderr (tail):\n%s", c.Stderr())
		}
	})
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// corpus reads a document from the shared corpus copy in chatdoc/testdata.
func corpus(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "chatdoc", "testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// open writes text to name in the workspace and opens it.
func (s *session) open(name, text string) string {
	s.t.Helper()
	path := filepath.Join(s.ws, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		s.t.Fatal(err)
	}
	uri := lspclient.PathURI(path)
	if err := s.c.Open(s.ctx, uri, text); err != nil {
		s.t.Fatal(err)
	}
	return uri
}

func (s *session) command(name string, args map[string]any) (map[string]any, error) {
	var out map[string]any
	err := s.c.Call(s.ctx, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{args}}, &out)
	return out, err
}

func (s *session) advance(uri string) map[string]any {
	s.t.Helper()
	r, err := s.command("chatls.advance", map[string]any{"uri": uri})
	if err != nil {
		s.t.Fatalf("chatls.advance: %v", err)
	}
	return r
}

// waitText waits until the document contains every substring.
func (s *session) waitText(uri string, subs ...string) {
	s.t.Helper()
	err := s.c.WaitFor(60*time.Second, fmt.Sprintf("%q in the document", subs), func(st *lspclient.State) bool {
		text := st.Text(uri)
		for _, sub := range subs {
			if !strings.Contains(text, sub) {
				return false
			}
		}
		return true
	})
	if err != nil {
		s.t.Fatalf("%v\n--- document:\n%s", err, s.c.Doc(uri).Text)
	}
}

// waitDiagnostic waits until a diagnostic with the message substring is published.
func (s *session) waitDiagnostic(uri, sub string) lspclient.Diagnostic {
	s.t.Helper()
	var found lspclient.Diagnostic
	err := s.c.WaitFor(10*time.Second, "diagnostic "+sub, func(st *lspclient.State) bool {
		for _, d := range st.Diagnostics(uri) {
			if strings.Contains(d.Message, sub) {
				found = d
				return true
			}
		}
		return false
	})
	if err != nil {
		s.t.Fatalf("%v; have %+v", err, s.c.Diagnostics(uri))
	}
	return found
}

// settle waits until the server answered a request sent after everything
// before it: the ordered dispatcher has then applied all earlier changes.
func (s *session) settle(uri string) {
	s.t.Helper()
	var out any
	if err := s.c.Call(s.ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &out); err != nil {
		s.t.Fatal(err)
	}
}

// codeActions returns the actions at the first occurrence of sub.
func (s *session) codeActions(uri, sub string) []codeAction {
	s.t.Helper()
	pos, err := s.c.PositionOf(uri, sub)
	if err != nil {
		s.t.Fatal(err)
	}
	return s.codeActionsAt(uri, pos)
}

// codeActionsAt returns the actions at pos.
func (s *session) codeActionsAt(uri string, pos lspclient.Position) []codeAction {
	s.t.Helper()
	var actions []codeAction
	if err := s.c.Call(s.ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        map[string]any{"start": pos, "end": pos},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions); err != nil {
		s.t.Fatal(err)
	}
	return actions
}

type codeAction struct {
	Title string `json:"title"`
	Edit  *struct {
		DocumentChanges []struct {
			TextDocument struct {
				Version int32 `json:"version"`
			} `json:"textDocument"`
			Edits []lspclient.TextEdit `json:"edits"`
		} `json:"documentChanges"`
	} `json:"edit"`
	Command *struct {
		Command   string           `json:"command"`
		Arguments []map[string]any `json:"arguments"`
	} `json:"command"`
}

// applyAction applies the code action whose title starts with prefix, as
// the user choosing it in the editor would.
//
// Like a real editor it applies the edit only to the version it was made
// for: when the document moved on while the menu was computed (a result
// written meanwhile, on a busy machine), it asks for the actions again, as
// a user would open the menu again.
func (s *session) applyAction(uri, at, prefix string) {
	s.t.Helper()
	for try := 0; ; try++ {
		a, ok := s.findAction(uri, at, prefix)
		if !ok {
			s.t.Fatalf("no code action %q at %q", prefix, at)
		}
		if a.Edit == nil {
			s.t.Fatalf("action %q has no edit", a.Title)
		}
		dc := a.Edit.DocumentChanges[0]
		if dc.TextDocument.Version != s.c.Doc(uri).Version && try < 20 {
			seen := len(s.c.Events())
			_ = s.c.WaitFor(10*time.Second, "the document to settle", func(st *lspclient.State) bool { return len(st.Events()) > seen })
			continue
		}
		if err := s.c.Change(s.ctx, uri, dc.Edits); err != nil {
			s.t.Fatal(err)
		}
		return
	}
}

// findAction is the code action at at whose title starts with prefix.
func (s *session) findAction(uri, at, prefix string) (codeAction, bool) {
	for _, a := range s.codeActions(uri, at) {
		if strings.HasPrefix(a.Title, prefix) {
			return a, true
		}
	}
	return codeAction{}, false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// waitFileFor waits, on file-system events (fsnotify on the directory), until
// path's content satisfies done, and returns it; what names the wait in the
// failure message.
func waitFileFor(t testing.TB, path, what string, done func(data []byte) bool) []byte {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for {
		if data, err := os.ReadFile(path); err == nil && done(data) {
			return data
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			t.Fatal(err)
		case <-timeout:
			data, _ := os.ReadFile(path)
			t.Fatalf("%s never %s: %q", path, what, data)
		}
	}
}
