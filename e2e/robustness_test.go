package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// The user types while the server writes a result: the client refuses the
// stale edit, the server retries on the newest version, and both the typing
// and the result survive, the result once, in its own block.
func TestNoLostEditsWhenClientRefuses(t *testing.T) {
	typed := 0
	var s *session
	opts := sessionOptions{}
	opts.BeforeApply = func(c *lspclient.Client) {
		if typed > 0 || s == nil {
			return
		}
		typed++
		uri := lspclient.PathURI(filepath.Join(s.ws, "race.chat"))
		// Type at the top of the document right before the edit is checked.
		if err := c.Change(context.Background(), uri, []lspclient.TextEdit{{Range: lspclient.Range{}, NewText: "typed while the tool ran\n"}}); err != nil {
			t.Error(err)
		}
	}
	s = start(t, opts)
	doc := strings.Replace(revokeDoc, "touch marker-a", "echo result-line", 1)
	uri := s.open("race.chat", doc)
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "typed while the tool ran\n@You:", "**Tool Result:** `toolu_m`\n\n```\nresult-line\n```")
	refused := 0
	for _, e := range s.c.Events() {
		if e.Kind == "refused" {
			refused++
		}
	}
	if refused == 0 {
		t.Error("the test did not make the server's edit stale")
	}
	if n := strings.Count(s.c.Doc(uri).Text, "\nresult-line\n"); n != 1 {
		t.Errorf("result written %d times:\n%s", n, s.c.Doc(uri).Text)
	}
}

// A client that applies edits but never answers applyEdit (Vim's ALE)
// still gets its results, and the server stays responsive.
func TestClientThatNeverAnswersApplyEdit(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{NeverReplyToApplyEdit: true}})
	doc := strings.Replace(revokeDoc, "touch marker-a", "echo ale-ok", 1)
	uri := s.open("ale.chat", doc)
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "```\nale-ok\n```")
	s.settle(uri)
}

// Progress goes only to clients that advertise window.workDoneProgress.
// The tool is held on a FIFO until the server has announced it (a refresh
// of the hints, which both clients support), so it runs long enough to
// have progress at all.
func TestProgressOnlyWhenAdvertised(t *testing.T) {
	for _, advertised := range []bool{true, false} {
		t.Run(fmt.Sprint(advertised), func(t *testing.T) {
			s := start(t, sessionOptions{Options: lspclient.Options{NoProgress: !advertised}})
			gate := filepath.Join(s.ws, "gate")
			if err := syscall.Mkfifo(gate, 0o600); err != nil {
				t.Fatal(err)
			}
			uri := s.open("p.chat", strings.Replace(revokeDoc, "touch marker-a", "read -r w < gate; echo progress $w", 1))
			s.settle(uri)
			before := refreshes(s.c.Events())
			if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
				t.Fatal(err)
			}
			if err := s.c.WaitFor(20*time.Second, "the run to be announced", func(st *lspclient.State) bool {
				return refreshes(st.Events()) > before && (!advertised || len(st.ProgressKinds()) > 0)
			}); err != nil {
				t.Fatal(err)
			}
			release(t, gate, "go")
			s.waitText(uri, "```\nprogress go\n```")
			kinds := 0
			for _, e := range s.c.Events() {
				if e.Kind == "progress" {
					kinds++
				}
			}
			if advertised && kinds < 2 {
				t.Errorf("expected begin and end progress, got %d", kinds)
			}
			if !advertised && kinds != 0 {
				t.Errorf("sent %d progress notifications to a client without progress support", kinds)
			}
		})
	}
}

// A tool that ends at once is not announced: no progress. (Hint refreshes
// are not checked: settings arriving after initialize refresh them too.)
func TestInstantToolIsNotAnnounced(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("fast.chat", strings.Replace(revokeDoc, "touch marker-a", "echo fast", 1))
	s.settle(uri)
	before := len(s.c.Events())
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "```\nfast\n```")
	s.settle(uri)
	// On a loaded machine even echo may outlast the announcement delay;
	// then announcing it is right. The decision log says how long it ran.
	runs := runEntries(t, s, "toolu_m")
	if len(runs) != 1 || runs[0].End == nil {
		t.Fatalf("want one finished run in the decision log, got %+v", runs)
	}
	if took := runs[0].End.Sub(*runs[0].Start); took >= 80*time.Millisecond {
		t.Skipf("echo took %s on this machine: too slow to tell an instant tool", took)
	}
	for _, e := range s.c.Events()[before:] {
		if e.Kind == "progress" || e.Label == "window/workDoneProgress/create" {
			t.Errorf("an instant tool was announced: %s %s", e.Kind, e.Label)
		}
	}
}

// Bad input never kills the server: broken JSON, a frame without
// Content-Length, unknown methods, requests for unopened documents,
// out-of-range positions and invalid params all get answers or log lines.
func TestBadInputGetsErrorsNotCrashes(t *testing.T) {
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	r := bufio.NewReader(stdout)
	send := func(body string) {
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	read := func() map[string]any {
		t.Helper()
		msgs := make(chan map[string]any, 1)
		go func() {
			length := 0
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					close(msgs)
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				fmt.Sscanf(line, "Content-Length: %d", &length)
			}
			body := make([]byte, length)
			io.ReadFull(r, body)
			var m map[string]any
			json.Unmarshal(body, &m)
			msgs <- m
		}()
		select {
		case m := <-msgs:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
		}
		return nil
	}
	// Answers skip server notifications (showMessage etc.).
	readResponse := func() map[string]any {
		t.Helper()
		for {
			m := read()
			if m == nil {
				t.Fatal("the server closed the stream")
			}
			if _, isReq := m["method"]; !isReq {
				return m
			}
		}
	}
	errCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		if e == nil {
			return 0
		}
		return e["code"].(float64)
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"hover","params":{}}`)
	if c := errCode(readResponse()); c != -32002 {
		t.Errorf("request before initialize: code %v, want -32002", c)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}`)
	if m := readResponse(); m["result"] == nil {
		t.Fatalf("initialize failed: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{this is not json`)
	if c := errCode(readResponse()); c != -32700 {
		t.Errorf("broken JSON: code %v, want -32700", c)
	}
	fmt.Fprintf(stdin, "X-Nonsense: 1\r\n\r\n")
	if c := errCode(readResponse()); c != -32700 {
		t.Errorf("frame without Content-Length: code %v, want -32700", c)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"textDocument/unknownThing","params":{}}`)
	if c := errCode(readResponse()); c != -32601 {
		t.Errorf("unknown method: code %v, want -32601", c)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere.chat"},"position":{"line":0,"character":0}}}`)
	if c := errCode(readResponse()); c != -32602 {
		t.Errorf("hover on an unopened document: code %v, want -32602", c)
	}
	send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///nowhere.chat","version":2},"contentChanges":[{"text":"x"}]}}`)
	send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/x.chat","languageId":"chat","version":1,"text":"@You:\nhi\n"}}}`)
	send(`{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///tmp/x.chat"},"position":{"line":9999,"character":9999}}}`)
	if m := readResponse(); errCode(m) != 0 {
		t.Errorf("out-of-range hover must be answered, got %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/x.chat","version":2},"contentChanges":[{"range":{"start":{"line":500,"character":3},"end":{"line":900,"character":0}},"text":"@Assistant:\n"}]}}`)
	send(`{"jsonrpc":"2.0","id":6,"method":"textDocument/codeAction","params":"not an object"}`)
	if c := errCode(readResponse()); c != -32602 {
		t.Errorf("invalid params: code %v, want -32602", c)
	}
	send(`{"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"chatls.run","arguments":[{"uri":"file:///tmp/x.chat","id":"nope"}]}}`)
	if c := errCode(readResponse()); c != -32602 {
		t.Errorf("run of an unknown id: code %v, want -32602", c)
	}
	send(`{"jsonrpc":"2.0","id":8,"method":"shutdown"}`)
	if m := readResponse(); errCode(m) != 0 {
		t.Errorf("shutdown failed: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"exit"}`)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after shutdown must end with code 0: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit")
	}
}

// A didChange whose range ends before it starts is read with its ends
// swapped, as vscode-languageserver's text-document model reads it: the
// server's view of the text stays the client's.
func TestReversedChangeRangeIsSwapped(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("reversed.chat", "@You:\nabcdef\n")
	if err := s.c.Notify(s.ctx, "textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]any{"line": 1, "character": 4}, "end": map[string]any{"line": 1, "character": 1}},
			"text":  "X",
		}},
	}); err != nil {
		t.Fatal(err)
	}
	var syms []struct {
		Name string `json:"name"`
	}
	if err := s.c.Call(s.ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms); err != nil {
		t.Fatal(err)
	}
	if len(syms) != 1 || syms[0].Name != "You: aXef" {
		t.Fatalf("the server reads the text as %+v, want \"You: aXef\" (abcdef with 1..4 replaced)", syms)
	}
}

// stdin closed in the middle of a message: the server exits (code 1, no
// shutdown) and its log says why, instead of leaving silently.
func TestInputEndingMidFrameIsLogged(t *testing.T) {
	cmd := exec.Command(binary, "--log-level", "info")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(stdin, "Content-Length: 200\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,")
	stdin.Close()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v", err)
	}
	if !strings.Contains(stderr.String(), "input ended in the middle of a message") {
		t.Fatalf("the log does not say why the server ended:\n%s", stderr.String())
	}
}
