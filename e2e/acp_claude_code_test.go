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
	if _, err := exec.LookPath("node"); err != nil {
		skipACP(t, "node is not installed: claude-code-acp runs on Node")
	}
	bin, _ := filepath.Abs("../acp/testdata/claude-code-acp/node_modules/.bin/claude-code-acp")
	if _, err := os.Stat(bin); err != nil {
		skipACP(t, "claude-code-acp is not installed: run acp/install-test-agents.sh")
	}
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
		case strings.Contains(last, `"tool_result"`):
			anthropicsse.Write(w, anthropicsse.Text(i, "The command printed hi."))
		default:
			anthropicsse.Write(w, anthropicsse.Tool(i, "mcp__acp__Bash", `{"command":"echo hi && echo there","description":"Say hi","timeout":10000}`))
		}
	}))
	defer srv.Close()

	dir := t.TempDir()
	file := filepath.Join(dir, "a.chat")
	testfs.Write(t, file, "@You:\nsay hi in the shell\n")
	config := "provider = \"claude\"\n[providers.claude]\ntype = \"acp\"\ncommand = [" + jsonString(bin) + "]\n" +
		"env = {ANTHROPIC_BASE_URL = " + jsonString(srv.URL) + ", ANTHROPIC_API_KEY = \"sk-ant-test\", HOME = " + jsonString(t.TempDir()) +
		", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = \"1\", DISABLE_AUTOUPDATER = \"1\", IS_SANDBOX = \"1\"}\n" +
		"[tools]\nautoApprove = [\"$default\", \"bash(echo *)\"]\n"
	code, _, stderr := runCLISend(t, dir, config, "a.chat")
	data, _ := os.ReadFile(file)
	text := string(data)
	for _, want := range []string{"**Tool Use:** `execute` (`toolu_01`)", `"command":"echo hi && echo there"`, "**Tool Result:** `toolu_01`", "hi\nthere", "The command printed hi.", "\n\n@You:\n\n"} {
		if code != 0 || !strings.Contains(text, want) {
			t.Fatalf("exit %d, no %q; stderr %s\n%s", code, want, stderr, text)
		}
	}
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
