package server

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// inProcess is a real server over net.Pipe driven by the scripted editor,
// for what needs a hook inside the server (package variables the e2e
// binary cannot reach).
type inProcess struct {
	t   *testing.T
	c   *lspclient.Client
	srv *Server
	ctx context.Context
	ws  string
}

func startInProcess(t *testing.T, initOptions any) *inProcess {
	t.Helper()
	return startInProcessWith(t, lspclient.Options{InitializationOptions: initOptions}, "")
}

// startInProcessWith starts a server whose user config file holds
// userConfig, driven by a scripted editor with the given options.
func startInProcessWith(t *testing.T, opts lspclient.Options, userConfig string) *inProcess {
	t.Helper()
	base := t.TempDir()
	if err := os.WriteFile(filepath.Join(base, "config.toml"), []byte(userConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	srv := New(Options{StateDir: filepath.Join(base, "state"), UserConfigPath: filepath.Join(base, "config.toml"), NoCustomTools: true})
	serverSide, clientSide := osPipes(t)
	done := make(chan struct{})
	go func() { srv.Serve(serverSide); close(done) }()
	opts.RootDir = ws
	c := lspclient.Connect(ctx, clientSide, opts)
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		_ = c.Shutdown(sctx)
		select {
		case <-done:
		case <-sctx.Done():
			t.Error("the server did not end")
		}
	})
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	return &inProcess{t: t, c: c, srv: srv, ctx: ctx, ws: ws}
}

// osPipes connects server and client through kernel pipes: unlike
// net.Pipe they buffer, so the two read loops, each answering the other's
// requests, cannot block writing to each other at the same moment.
func osPipes(t *testing.T) (serverSide, clientSide io.ReadWriteCloser) {
	t.Helper()
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toClient, fromServer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return pipeEnd{toServer, fromServer}, pipeEnd{toClient, fromClient}
}

type pipeEnd struct {
	r *os.File
	w *os.File
}

func (p pipeEnd) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeEnd) Close() error {
	p.w.Close()
	return p.r.Close()
}

// open writes text to name in the workspace, opens it and waits until the
// server has it.
func (p *inProcess) open(name, text string) string {
	p.t.Helper()
	path := filepath.Join(p.ws, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
	uri := lspclient.PathURI(path)
	if err := p.c.Open(p.ctx, uri, text); err != nil {
		p.t.Fatal(err)
	}
	var out any
	if err := p.c.Call(p.ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &out); err != nil {
		p.t.Fatal(err)
	}
	return uri
}

func (p *inProcess) command(name string, args map[string]any) (map[string]any, error) {
	var out map[string]any
	err := p.c.Call(p.ctx, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{args}}, &out)
	return out, err
}

func (p *inProcess) waitText(uri string, subs ...string) {
	p.t.Helper()
	err := p.c.WaitFor(20*time.Second, "text "+strings.Join(subs, " + "), func(st *lspclient.State) bool {
		for _, sub := range subs {
			if !strings.Contains(st.Text(uri), sub) {
				return false
			}
		}
		return true
	})
	if err != nil {
		p.t.Fatalf("%v\n--- document:\n%s", err, p.c.Doc(uri).Text)
	}
}

// waitHover re-asks for the hover at the first occurrence of at until it
// contains want (the hover is computed on request; nothing announces it).
func (p *inProcess) waitHover(uri, at, want string) {
	p.t.Helper()
	pos, err := p.c.PositionOf(uri, at)
	if err != nil {
		p.t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var h struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		}
		if err := p.c.Call(p.ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos}, &h); err != nil {
			p.t.Fatal(err)
		}
		if strings.Contains(h.Contents.Value, want) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("hover never showed %q; last:\n%s", want, h.Contents.Value)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// messages are the window/showMessage texts that start with prefix.
func (p *inProcess) messages(prefix string) []string {
	return showMessagesIn(p.c.Events(), prefix)
}

func showMessagesIn(events []lspclient.Event, prefix string) []string {
	var out []string
	for _, e := range events {
		var m struct {
			Message string `json:"message"`
		}
		if e.Kind == "message" && e.Label == "window/showMessage" && json.Unmarshal(e.Data, &m) == nil && strings.HasPrefix(m.Message, prefix) {
			out = append(out, m.Message)
		}
	}
	return out
}

// waitMessages waits until n messages start with prefix.
func (p *inProcess) waitMessages(n int, prefix string) {
	p.t.Helper()
	if err := p.c.WaitFor(20*time.Second, "messages "+prefix, func(st *lspclient.State) bool {
		return len(showMessagesIn(st.Events(), prefix)) >= n
	}); err != nil {
		p.t.Fatalf("%v; have %q", err, p.messages(""))
	}
}

// pendingBash is one bash call answered by a pending placeholder.
func pendingBash(id, command string) string {
	return "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`" + id + "`)\n\n```json\n" +
		`{"command":` + jsonQuote(command) + `,"timeout":null}` + "\n```\n\n@You:\n\n**Tool Result:** `" + id + "`\n\n```flemma:tool status=pending\n```\n"
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
