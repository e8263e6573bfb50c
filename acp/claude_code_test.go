package acp

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

	"github.com/chatls/chatls/internal/anthropicsse"
)

// claudeCodeACP is @zed-industries/claude-code-acp, installed by
// `npm ci --prefix acp/testdata/claude-code-acp` (about 125 MB: it bundles
// Claude Code's CLI).
func claudeCodeACP(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		skipUnlessRequired(t, "node is not installed: claude-code-acp runs on Node")
	}
	bin, _ := filepath.Abs("testdata/claude-code-acp/node_modules/.bin/claude-code-acp")
	if _, err := os.Stat(bin); err != nil {
		skipUnlessRequired(t, "claude-code-acp is not installed: run `npm ci --prefix acp/testdata/claude-code-acp`")
	}
	return bin
}

// anthropicReplay answers Claude Code's Messages requests offline: the
// first turn asks for the ACP Bash tool, the tool's result gets a text
// answer, and any other turn a text answer too. Side requests (titles,
// token counts) get small answers.
type anthropicReplay struct {
	mu       sync.Mutex
	n        int
	requests []string // the last user content of each streamed request
}

func (r *anthropicReplay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var msg struct {
		Stream   bool              `json:"stream"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []json.RawMessage `json:"messages"`
	}
	json.Unmarshal(body, &msg)
	if strings.Contains(req.URL.Path, "count_tokens") {
		io.WriteString(w, `{"input_tokens":10}`)
		return
	}
	if !msg.Stream {
		io.WriteString(w, `{"id":"msg_side","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Title"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
		return
	}
	last := ""
	if len(msg.Messages) > 0 {
		last = string(msg.Messages[len(msg.Messages)-1])
	}
	r.mu.Lock()
	r.n++
	n := r.n
	if len(msg.Tools) > 0 {
		r.requests = append(r.requests, last)
	}
	r.mu.Unlock()
	w.Header().Set("content-type", "text/event-stream")
	switch {
	case len(msg.Tools) == 0:
		anthropicsse.Write(w, anthropicsse.Text(n, "Title"))
	case strings.Contains(last, `"tool_result"`):
		anthropicsse.Write(w, anthropicsse.Text(n, "The command printed hi."))
	case strings.Contains(last, "second turn"):
		anthropicsse.Write(w, anthropicsse.Text(n, "Second answer."))
	default:
		anthropicsse.Write(w, anthropicsse.Tool(n, "mcp__acp__Bash", `{"command":"echo hi && echo there","description":"Say hi","timeout":10000}`))
	}
}

// TestClaudeCodeTwoTurnsWithPermission holds a two-turn conversation with
// the real claude-code-acp, offline: its model is the replay above.
func TestClaudeCodeTwoTurnsWithPermission(t *testing.T) {
	bin := claudeCodeACP(t)
	replay := &anthropicReplay{}
	srv := httptest.NewServer(replay)
	defer srv.Close()
	spec := Spec{Command: []string{bin}, Timeout: testLimit, Silence: testLimit, Env: map[string]string{
		"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "sk-ant-test", "HOME": t.TempDir(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
		"IS_SANDBOX": "1", // Claude Code refuses to run as root (CI containers) otherwise
	}}
	c := newTestClient(allowKind(AllowOnce))
	a := startSpec(t, spec, c)
	if a.Info == nil || a.Info.Name != "@zed-industries/claude-code-acp" || !a.Caps.LoadSession {
		t.Errorf("initialize: %+v %+v", a.Info, a.Caps)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	work := t.TempDir()
	s, err := a.Session(ctx, work, "")
	if err != nil {
		t.Fatal(err)
	}

	var tr Transcript
	var toolCalls int
	stop, err := a.Prompt(ctx, s.ID, []Block{{Text: "say hi in the shell"}}, func(u Update) {
		if u.Kind == UpdateToolCall {
			toolCalls++
		}
		tr.Add(u)
	})
	if err != nil || stop != StopEndTurn {
		t.Fatalf("turn 1: %q, %v (stderr %q)", stop, err, a.Stderr(5))
	}
	if len(c.permissions) != 1 || c.permissions[0].ToolCall.ID != "toolu_01" || !strings.Contains(c.permissions[0].ToolCall.Title, "echo hi") {
		t.Errorf("permissions = %+v", c.permissions)
	}
	if len(c.lines) != 1 || c.lines[0] != "echo hi && echo there" {
		t.Errorf("terminal lines = %q (claude-code-acp sends the whole line in command)", c.lines)
	}
	if toolCalls != 2 {
		t.Errorf("tool_calls = %d, want 2: claude-code-acp announces a call, then sends it again with its input", toolCalls)
	}
	text := tr.Final("")
	for _, want := range []string{"**Tool Use:** `execute` (`toolu_01`)", `"command":"echo hi && echo there"`, "**Tool Result:** `toolu_01`", "The command printed hi."} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %q:\n%s", want, text)
		}
	}

	got, stop, err := prompt(t, a, s.ID, "second turn")
	if err != nil || stop != StopEndTurn || message(got, UpdateMessage) != "Second answer." {
		t.Errorf("turn 2: %q, %v, %q", stop, err, message(got, UpdateMessage))
	}
	replay.mu.Lock()
	defer replay.mu.Unlock()
	if len(replay.requests) != 3 {
		t.Errorf("the model got %d requests, want 3 (prompt, tool result, second turn)", len(replay.requests))
	}
}
