package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// callDoc is one call of tool NAME with input, answered by a pending placeholder.
func callDoc(name, id, input string) string {
	return "@You:\ngo\n\n@Assistant:\n**Tool Use:** `" + name + "` (`" + id + "`)\n\n```json\n" + input + "\n```\n\n@You:\n\n**Tool Result:** `" + id + "`\n\n```flemma:tool status=pending\n```\n"
}

// A plugin executable configured in the settings is a tool like any other:
// previewed, approved by an edit, run, its result written back.
func TestPluginToolThroughTheServer(t *testing.T) {
	plugin := buildProgram(t, "github.com/chatls/chatls/examples/wordcount-plugin")
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"plugins": []any{map[string]any{"name": "wordcount", "path": plugin}}},
	}}})
	uri := s.open("plugin.chat", callDoc("wordcount", "toolu_wc", `{"text":"one two three","path":null}`))
	s.waitDiagnostic(uri, "approval pending: wordcount")
	s.applyAction(uri, "status=pending", "Approve wordcount")
	s.waitText(uri, "**Tool Result:** `toolu_wc`\n\n```\n1 lines, 3 words, 13 characters\n```")
	for _, d := range s.c.Diagnostics(uri) {
		if strings.Contains(d.Message, "Unknown tool") {
			t.Errorf("a plugin tool must not be flagged unknown: %s", d.Message)
		}
	}
}

// The reference MCP server from npm, over stdio: tools are named
// server:tool, validated against the server's schema and run on approval.
func TestMCPServerThroughTheServer(t *testing.T) {
	script, _ := filepath.Abs("../tools/mcp/testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(script); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("CHATLS_REQUIRE_NPM_MCP") != "" {
			t.Fatalf("the npm MCP server is not installed (run tools/mcp/install-test-server.sh): %v", err)
		}
		t.Skip("npm MCP server not installed; run tools/mcp/install-test-server.sh")
	}
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": "node", "args": []string{script, "stdio"}}}},
	}}})
	uri := s.open("mcp.chat", callDoc("everything:echo", "toolu_mcp", `{"message":"hello over mcp"}`))
	s.waitDiagnostic(uri, "approval pending: everything:echo")
	s.applyAction(uri, "status=pending", "Approve everything:echo")
	s.waitText(uri, "**Tool Result:** `toolu_mcp`\n\n```\n", "hello over mcp\n```")
	var tools []map[string]any
	if err := s.c.Call(s.ctx, "workspace/executeCommand", map[string]any{"command": "chatls.listTools", "arguments": []any{map[string]any{}}}, &tools); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range tools {
		if tool["name"] == "everything.echo" && tool["source"] == "mcp:everything" {
			found = true
		}
	}
	if !found {
		t.Error("chatls.listTools must list everything:echo from mcp:everything")
	}
}

// slowPlugin writes a plugin declaring slowtool (which answers "slow ok")
// that answers init only once the test writes a line to the release FIFO.
func slowPlugin(t *testing.T) (plugin, release string) {
	t.Helper()
	dir := t.TempDir()
	release = filepath.Join(dir, "release")
	plugin = filepath.Join(dir, "slow-plugin")
	if err := syscall.Mkfifo(release, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/bash\nread -r line\nread -r _ < " + release + "\n" +
		`echo '{"type":"init","tools":[{"name":"slowtool","description":"answers slowly","parameters":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"],"additionalProperties":false}}]}'` + "\n" +
		"while read -r line; do id=$(sed 's/.*\"call_id\":\"\\([^\"]*\\)\".*/\\1/' <<<\"$line\"); echo '{\"type\":\"result\",\"call_id\":\"'$id'\",\"content\":[{\"type\":\"text\",\"text\":\"slow ok\"}],\"is_error\":false}'; done\n"
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return plugin, release
}

// A slow tool source: until it is ready the document says it is waiting
// (diagnostic and hint) instead of flagging its tools as unknown, and the
// cycle resumes by itself once the definitions arrive.
func TestWaitingForToolDefinitions(t *testing.T) {
	plugin, release := slowPlugin(t)
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{
			"plugins":     []any{map[string]any{"name": "slow", "path": plugin}},
			"autoApprove": []string{"$default", "slowtool"},
		},
	}}})
	doc := strings.Replace(callDoc("slowtool", "toolu_slow", `{"x":"y"}`), "\n**Tool Result:** `toolu_slow`\n\n```flemma:tool status=pending\n```\n", "", 1)
	uri := s.open("slow.chat", doc)
	s.waitDiagnostic(uri, "Waiting for tool definitions to load...")
	for _, d := range s.c.Diagnostics(uri) {
		if strings.Contains(d.Message, "Unknown tool") {
			t.Errorf("a tool of a loading source must not be flagged unknown: %s", d.Message)
		}
	}
	// chatls.advance waits for the definitions; release them meanwhile.
	done := make(chan map[string]any, 1)
	go func() {
		r, _ := s.command("chatls.advance", map[string]any{"uri": uri})
		done <- r
	}()
	if err := os.WriteFile(release, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	<-done
	s.waitText(uri, "**Tool Result:** `toolu_slow`\n\n```\nslow ok\n```")
	if err := s.c.WaitFor(10e9, "the waiting diagnostic to go", func(st *lspclient.State) bool {
		for _, d := range st.Diagnostics(uri) {
			if strings.Contains(d.Message, "Waiting for tool definitions") {
				return false
			}
		}
		return true
	}); err != nil {
		t.Error(err)
	}
}

// $/cancelRequest stops a request that is waiting (here chatls.advance
// waiting for a tool source that never loads): the answer is -32800.
func TestCancelRequestWhileWaiting(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "never-ready")
	// Reads init and never answers it: the source stays loading.
	if err := os.WriteFile(plugin, []byte("#!/bin/bash\nread -r line\nexec cat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"plugins": []any{map[string]any{"name": "never", "path": plugin}}},
	}}})
	// A tool nobody knows yet may come from the loading source: the document waits.
	uri := s.open("cancel-req.chat", callDoc("nevertool", "toolu_r", `{"x":"y"}`))
	s.waitDiagnostic(uri, "Waiting for tool definitions to load...")
	wait, err := s.c.Send(s.ctx, 4242, "workspace/executeCommand", map[string]any{"command": "chatls.advance", "arguments": []any{map[string]any{"uri": uri}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.c.Notify(s.ctx, "$/cancelRequest", map[string]any{"id": 4242}); err != nil {
		t.Fatal(err)
	}
	var out any
	err = wait(&out)
	if err == nil || !strings.Contains(err.Error(), "-32800") {
		t.Fatalf("a cancelled request must answer -32800, got %v", err)
	}
}

// Only documents that use a tool a loading source may provide wait for it:
// one using built-ins alone is categorized at once by chatls.advance while
// the plugin still loads; one whose streamed-in call uses the plugin's tool
// says it is waiting and, under autopilot, goes on by itself once the
// plugin has loaded (no chatls.advance).
func TestOnlyDocumentsThatNeedToolDefinitionsWait(t *testing.T) {
	plugin, release := slowPlugin(t)
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{
			"plugins":        []any{map[string]any{"name": "slow", "path": plugin}},
			"autoApprove":    []string{"$default", "slowtool"},
			"defaultTimeout": 120, // a wait for the plugin would outlast the test
		},
	}}})
	builtins := s.open("builtins.chat", "@You:\ngo\n\n@Assistant:\n**Tool Use:** `calculator` (`toolu_calc`)\n\n```json\n{\"expression\":\"1 + 1\"}\n```\n\n@You:\n")
	slow := s.open("slow.chat", "@You:\ngo\n")
	s.settle(slow)
	// A response streams in and ends: autopilot takes it, and waits for slowtool.
	streamed := "\n@Assistant:\n**Tool Use:** `slowtool` (`toolu_slow`)\n\n```json\n{\"x\":\"y\"}\n```\n\n@You:\n"
	if err := appendText(s, slow, s.c.Doc(slow).Text, streamed); err != nil {
		t.Fatal(err)
	}
	s.waitDiagnostic(slow, "Waiting for tool definitions to load...")

	ctx, cancel := context.WithTimeout(s.ctx, 15*time.Second)
	defer cancel()
	var report map[string]any
	err := s.c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "chatls.advance", "arguments": []any{map[string]any{"uri": builtins}}}, &report)
	if err != nil {
		t.Fatalf("chatls.advance on a document using built-ins alone waited for the plugin: %v", err)
	}
	if report["phase"] != "categorize" {
		t.Errorf("advance = %v, want the calculator call categorized", report)
	}
	s.waitText(builtins, "**Tool Result:** `toolu_calc`\n\n```flemma:tool status=pending\n```")
	if strings.Contains(s.c.Doc(slow).Text, "Tool Result") {
		t.Fatalf("the plugin's call was categorized before the plugin loaded:\n%s", s.c.Doc(slow).Text)
	}

	if err := os.WriteFile(release, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.waitText(slow, "**Tool Result:** `toolu_slow`\n\n```\nslow ok\n```")
}
