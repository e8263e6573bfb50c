package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatls/chatls/internal/anthropicsse"
	"github.com/chatls/chatls/internal/testfs"
)

// The real @zed-industries/claude-code-acp through chatls send, offline:
// its model is a local replay of Anthropic's Messages stream that asks for
// its Bash tool, then answers in text. The policy allows `echo`, so the
// permission goes back as allow-once, and the command runs as chatls's
// own bash call (terminal/create).
func TestAgentClaudeCode(t *testing.T) {
	bin := claudeCodeACP(t)
	srv := claudeCodeReplay(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a.chat")
	testfs.Write(t, file, "@You:\nsay hi in the shell\n")
	config := claudeCodeConfig(t, bin, srv.URL, "[tools]\nautoApprove = [\"$default\", \"bash(echo *)\"]\n")
	code, _, stderr := runCLISend(t, dir, config, "a.chat")
	data, _ := os.ReadFile(file)
	text := string(data)
	for _, want := range []string{"**Tool Use:** `execute` (`toolu_01`)", `"command":"echo hi && echo there"`, "**Tool Result:** `toolu_01`", "hi\nthere", "The command printed hi.", "\n\n@You:\n\n"} {
		if code != 0 || !strings.Contains(text, want) {
			t.Fatalf("exit %d, no %q; stderr %s\n%s", code, want, stderr, text)
		}
	}
}

// The same agent in an editor session over two turns: the policy asks, so
// Claude Code's permission request is a pending placeholder in the
// document; the user approves it by editing the text, the command runs as
// chatls's bash call, and the second question goes to the same agent
// session (the model's third request carries the whole conversation).
func TestAgentClaudeCodeTwoTurnsApprovedInTheDocument(t *testing.T) {
	bin := claudeCodeACP(t)
	srv := claudeCodeReplay(t)
	s := start(t, sessionOptions{userConfig: claudeCodeConfig(t, bin, srv.URL, "[tools]\nautoApprove = []\n")})
	uri := s.open("a.chat", "@You:\nsay hi in the shell\n")
	s.send(uri)
	s.waitText(uri, "**Tool Use:** `execute` (`toolu_01`)", "status=pending")
	if strings.Contains(s.c.Doc(uri).Text, "hi\nthere") {
		t.Fatalf("the command ran before it was approved:\n%s", s.c.Doc(uri).Text)
	}
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_01`", "hi\nthere", "The command printed hi.")
	waitDone(t, s, uri)

	askAgent(t, s, uri, "second turn\n")
	s.waitText(uri, "Second answer, after the command.")
	waitDone(t, s, uri)
	if got := s.c.Doc(uri).Text; strings.Count(got, "@Assistant:") != 3 || strings.Count(got, "**Tool Use:**") != 1 {
		t.Errorf("two turns (three answers: the call, its follow-up, the second), one tool use expected:\n%s", got)
	}
}

// claudeCodeACP is the installed claude-code-acp, or the test skips.
func claudeCodeACP(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		skipACP(t, "node is not installed: claude-code-acp runs on Node")
	}
	bin, _ := filepath.Abs("../acp/testdata/claude-code-acp/node_modules/.bin/claude-code-acp")
	if _, err := os.Stat(bin); err != nil {
		skipACP(t, "claude-code-acp is not installed: run acp/install-test-agents.sh")
	}
	return bin
}

// claudeCodeConfig is a user config whose provider is claude-code-acp
// talking to the local replay at url, offline; extra is more TOML.
func claudeCodeConfig(t *testing.T, bin, url, extra string) string {
	return "provider = \"claude\"\n[providers.claude]\ntype = \"acp\"\ncommand = [" + jsonString(bin) + "]\n" +
		"env = {ANTHROPIC_BASE_URL = " + jsonString(url) + ", ANTHROPIC_API_KEY = \"sk-ant-test\", HOME = " + jsonString(t.TempDir()) +
		", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = \"1\", DISABLE_AUTOUPDATER = \"1\", IS_SANDBOX = \"1\"}\n" + extra
}

// claudeCodeReplay is Claude Code's model: a local replay of Anthropic's
// Messages stream that asks for the Bash tool first, answers the tool's
// result in text, and answers a second question in text. Side requests
// (titles, token counts) get short answers.
func claudeCodeReplay(t *testing.T) *httptest.Server {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var msg struct {
			Stream   bool              `json:"stream"`
			Tools    []json.RawMessage `json:"tools"`
			Messages []json.RawMessage `json:"messages"`
		}
		_ = json.Unmarshal(body, &msg)
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
		i := int(n.Add(1))
		w.Header().Set("content-type", "text/event-stream")
		switch {
		case len(msg.Tools) == 0:
			anthropicsse.Write(w, anthropicsse.Text(i, "Title"))
		case strings.Contains(last, "second turn") && strings.Contains(string(body), "echo hi && echo there"):
			// The same session: the request carries the first turn.
			anthropicsse.Write(w, anthropicsse.Text(i, "Second answer, after the command."))
		case strings.Contains(last, "second turn"):
			anthropicsse.Write(w, anthropicsse.Text(i, "Second answer, with no history."))
		case strings.Contains(last, `"tool_result"`):
			anthropicsse.Write(w, anthropicsse.Text(i, "The command printed hi."))
		default:
			anthropicsse.Write(w, anthropicsse.Tool(i, "mcp__acp__Bash", `{"command":"echo hi && echo there","description":"Say hi","timeout":10000}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// skipACP skips a test whose agent is not installed, unless
// CHATLS_REQUIRE_ACP is set.
func skipACP(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CHATLS_REQUIRE_ACP") != "" {
		t.Fatal(why + " (CHATLS_REQUIRE_ACP is set)")
	}
	t.Skip(why)
}
