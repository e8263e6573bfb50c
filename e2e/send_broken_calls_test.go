package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// chatTurn is one scripted Chat Completions answer: text, then calls.
type chatTurn struct {
	text  string
	calls [][3]string // id, name, arguments as the model sent them
}

// chatScript is a Chat Completions server (the provider's edge, the one
// fake) answering request N with turn N and keeping each request body.
type chatScript struct {
	mu     sync.Mutex
	bodies []string
}

func newChatScript(t *testing.T, turns ...chatTurn) (*chatScript, string) {
	t.Helper()
	cs := &chatScript{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		cs.mu.Lock()
		n := len(cs.bodies)
		cs.bodies = append(cs.bodies, string(body))
		cs.mu.Unlock()
		if n >= len(turns) {
			http.Error(w, `{"error":{"type":"test","message":"no more turns"}}`, 500)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta any, finish any) {
			j, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
			io.WriteString(w, "data: "+string(j)+"\n\n")
		}
		turn := turns[n]
		chunk(map[string]any{"role": "assistant", "content": turn.text}, nil)
		for i, c := range turn.calls {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c[0], "type": "function",
				"function": map[string]any{"name": c[1], "arguments": c[2]}}}}, nil)
		}
		finish := "stop"
		if len(turn.calls) > 0 {
			finish = "tool_calls"
		}
		chunk(map[string]any{}, finish)
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":4,"total_tokens":9}}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return cs, srv.URL + "/v1"
}

func (cs *chatScript) requests() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]string(nil), cs.bodies...)
}

// brokenTurns: a model that sends a call with invalid JSON, a call to a
// tool chatls does not offer and a good call, then reuses the good call's
// ID, then finishes.
var brokenTurns = []chatTurn{
	{text: "Trying.", calls: [][3]string{{"call_bad", "bash", `{"command": "ls`}, {"call_unk", "reed", `{"path":"notes.txt"}`},
		{"call_1", "read", `{"path":"notes.txt","offset":null,"limit":null}`}}},
	{text: "Again.", calls: [][3]string{{"call_1", "read", `{"path":"notes.txt","offset":null,"limit":null}`}}},
	{text: "Done."},
}

// brokenChainDoc is the document the chain of brokenTurns leaves.
const brokenChainDoc = "@You:\nread my notes\n\n@Assistant:\nTrying.\n\n" +
	"**Tool Use:** `bash` (`call_bad`)\n```json\n{\"command\": \"ls\n```\n\n" +
	"**Tool Use:** `reed` (`call_unk`)\n```json\n{\"path\":\"notes.txt\"}\n```\n\n" +
	"**Tool Use:** `read` (`call_1`)\n```json\n{\"path\":\"notes.txt\",\"offset\":null,\"limit\":null}\n```\n\n@You:\n\n" +
	"**Tool Result:** `call_bad` (error)\n```\nFailed to parse tool input: unexpected end of JSON input\n```\n\n" +
	"**Tool Result:** `call_unk` (error)\n```\nUnknown tool: reed (did you mean read?)\n```\n\n" +
	"**Tool Result:** `call_1`\n```\nBuy milk.\n```\n\n" +
	"@Assistant:\nAgain.\n\n**Tool Use:** `read` (`call_1`)\n```json\n{\"path\":\"notes.txt\",\"offset\":null,\"limit\":null}\n```\n\n@You:\n\n" +
	"**Tool Result:** `call_1` (error)\n```\nTool use ID call_1 is already used earlier in this conversation; the call was not run.\n```\n\n" +
	"@Assistant:\nDone.\n\n@You:\n\n"

// checkBrokenRequests: each error reached the model in the next request.
func checkBrokenRequests(t *testing.T, bodies []string) {
	t.Helper()
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(bodies))
	}
	for i, want := range [][]string{
		{"Failed to parse tool input: unexpected end of JSON input", "Unknown tool: reed (did you mean read?)", "Buy milk."},
		{"Tool use ID call_1 is already used earlier in this conversation; the call was not run."},
	} {
		for _, w := range want {
			if !strings.Contains(bodies[i+1], strings.TrimSuffix(string(mustJSON(w)), `"`)[1:]) {
				t.Errorf("request %d does not carry %q:\n%s", i+2, w, bodies[i+1])
			}
		}
	}
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// Calls that can never run are answered at once (SPEC §1) and the chain
// goes on: invalid JSON, an unknown tool and a reused ID each get their
// error result without waiting for anyone, the next request carries them,
// and the model finishes — in an editor session with autopilot.
func TestBrokenCallsDoNotStallTheChain(t *testing.T) {
	cs, url := newChatScript(t, brokenTurns...)
	s := start(t, sessionOptions{userConfig: slowConfig(url)})
	testfs.Write(t, filepath.Join(s.ws, "notes.txt"), "Buy milk.\n")
	uri := s.open("broken.chat", "@You:\nread my notes\n")
	s.send(uri)
	s.waitText(uri, "Done.\n\n@You:\n\n")
	if got := s.c.Doc(uri).Text; got != brokenChainDoc {
		t.Fatalf("document:\n%s\nwant:\n%s", got, brokenChainDoc)
	}
	checkBrokenRequests(t, cs.requests())
}

// The same from a terminal: `chatls send FILE` runs the chain to its end
// and exits 0 — it must not hang (bounded generously: a hang fails).
func TestCLISendBrokenCallsDoNotHang(t *testing.T) {
	cs, url := newChatScript(t, brokenTurns...)
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "notes.txt"), "Buy milk.\n")
	file := filepath.Join(dir, "broken.chat")
	testfs.Write(t, file, "@You:\nread my notes\n")
	code, stdout, stderr := runCLISendWithin(t, 3*time.Minute, dir, slowConfig(url), "broken.chat")
	data, _ := os.ReadFile(file)
	if code != 0 || string(data) != brokenChainDoc {
		t.Fatalf("exit %d, stdout %q, stderr %q\nfile:\n%s\nwant:\n%s", code, stdout, stderr, data, brokenChainDoc)
	}
	checkBrokenRequests(t, cs.requests())
}

// runCLISendWithin is runCLISend killed after d: a hang fails the test.
func runCLISendWithin(t *testing.T, d time.Duration, dir, userConfig string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config")
	testfs.Write(t, filepath.Join(cfg, "chatls", "config.toml"), userConfig)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"send"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	code, stdout, stderr = runCommand(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("chatls send did not end within %s (stderr %q)", d, stderr)
	}
	return code, stdout, stderr
}
