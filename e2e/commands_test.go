package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

func bashDoc(command string) string {
	return strings.Replace(revokeDoc, "touch marker-a", command, 1)
}

// chatls.cancel stops a running tool and its children; the block keeps what
// it printed, then the fixed text.
func TestCancelRunningTool(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("cancel.chat", bashDoc("echo begun; sleep 60 & sleep 60; wait"))
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitDiagnostic(uri, "running bash")
	titles := ""
	for _, a := range s.codeActions(uri, "status=approved") {
		titles += a.Title + "\n"
	}
	if !strings.Contains(titles, "Cancel\n") {
		t.Errorf("a running call must offer Cancel, got:\n%s", titles)
	}
	// Its first line has been read (the progress reports it as "Ns · begun";
	// the title quotes the command, so "begun" alone proves nothing and a
	// slow sandbox start made the cancel come before the echo): the cancel
	// comes after output, as when a user stops a command to look at it.
	if err := s.c.WaitFor(60*time.Second, "progress with the first line", func(st *lspclient.State) bool {
		for _, e := range st.Events() {
			if e.Kind == "progress" && strings.Contains(string(e.Data), "s · begun") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	out, err := s.command("chatls.cancel", map[string]any{"uri": uri, "id": "toolu_m"})
	if err != nil || out["cancelled"] != true {
		t.Fatalf("cancel: %v %v", out, err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_m` (error)\n\n```\nbegun\n\nUser aborted tool execution.\n```")
	if time.Since(began) > 30*time.Second { // the sleeps last 60 s
		t.Error("cancel took too long")
	}
}

// Inlay hints show the preview at the end of the placeholder's fence
// opener; hover shows the decision trace.
func TestInlayHintAndHover(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("hint.chat", corpus(t, "01-pending-bash.chat"))
	s.settle(uri)
	var hints []struct {
		Position lspclient.Position `json:"position"`
		Label    string             `json:"label"`
	}
	if err := s.c.Call(s.ctx, "textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 100, "character": 0}}}, &hints); err != nil {
		t.Fatal(err)
	}
	if len(hints) != 1 || hints[0].Label != "bash: $ go test ./...  # running tests" {
		t.Fatalf("hints = %+v", hints)
	}
	opener, _ := s.c.PositionOf(uri, "```flemma:tool status=pending")
	if hints[0].Position.Line != opener.Line || hints[0].Position.Character != len("```flemma:tool status=pending") {
		t.Errorf("hint at %+v, want the end of line %d", hints[0].Position, opener.Line)
	}
	pos, _ := s.c.PositionOf(uri, "toolu_01A")
	var hover struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	if err := s.c.Call(s.ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos}, &hover); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"require_approval", "go test ./...", "catch-all"} {
		if !strings.Contains(hover.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hover.Contents.Value)
		}
	}
	exp, err := s.command("chatls.explain", map[string]any{"uri": uri, "id": "toolu_01A"})
	if err != nil {
		t.Fatal(err)
	}
	if exp["decision"] != "require_approval" || !strings.HasPrefix(exp["trace"].(string), "require_approval\n") {
		t.Errorf("explain = %v", exp)
	}
}

// "Always allow" writes the narrow rule into .chatls.toml and approves the
// pending calls it covers; in a trusted workspace they run.
func TestAlwaysAllowWritesRuleAndRuns(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, ".chatls.toml"), []byte("# my settings\n[tools]\nautoApprove = [\"$default\"] # keep\n"), 0o644)
	s := start(t, sessionOptions{ws: ws, Options: lspclient.Options{InitializationOptions: map[string]any{"trust": map[string]any{"workspaces": []string{ws}}}}})
	uri := s.open("allow.chat", bashDoc("echo allowed-by-rule"))
	s.settle(uri)
	var rule string
	var args map[string]any
	for _, a := range s.codeActions(uri, "status=pending") {
		if strings.HasPrefix(a.Title, "Always allow ") {
			rule = strings.TrimSuffix(strings.TrimPrefix(a.Title, "Always allow "), " in this workspace")
			args = a.Command.Arguments[0]
		}
	}
	if rule != "bash(echo *)" {
		t.Fatalf("the proposed rule must be the narrow bash(echo *), got %q", rule)
	}
	if _, err := s.command("chatls.alwaysAllow", args); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "```\nallowed-by-rule\n```")
	data, _ := os.ReadFile(filepath.Join(ws, ".chatls.toml"))
	if !strings.Contains(string(data), "# my settings") || !strings.Contains(string(data), "bash(echo *)") {
		t.Errorf(".chatls.toml lost its comments or the rule:\n%s", data)
	}
}

// chatls.listTools lists built-ins with schemas.
func TestListTools(t *testing.T) {
	s := start(t, sessionOptions{})
	var out []map[string]any
	if err := s.c.Call(s.ctx, "workspace/executeCommand", map[string]any{"command": "chatls.listTools", "arguments": []any{map[string]any{}}}, &out); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range out {
		names[tool["name"].(string)] = true
		if tool["schema"] == nil || tool["source"] != "builtin" {
			t.Errorf("tool without schema or source: %v", tool)
		}
	}
	for _, want := range []string{"bash", "read", "write", "edit", "grep", "find", "ls", "calculator", "web_fetch", "time"} {
		if !names[want] {
			t.Errorf("missing tool %s", want)
		}
	}
}

// With sandbox.enabled but bubblewrap unusable, chatls says so once and
// every bash call asks, even one a rule approves.
func TestSandboxMissingAsksForEveryBashCall(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"sandbox": map[string]any{"enabled": true, "bwrap": "/nonexistent/bwrap"},
		"tools":   map[string]any{"autoApprove": []string{"$default", "bash(echo *)"}},
	}}})
	uri := s.open("sandbox.chat", strings.Replace(bashDoc("echo hi"), "\n**Tool Result:** `toolu_m`\n\n```flemma:tool status=pending\n```\n", "", 1))
	s.settle(uri)
	s.advance(uri)
	s.waitText(uri, "```flemma:tool status=pending")
	warned := 0
	for _, e := range s.c.Events() {
		if e.Kind == "message" && strings.Contains(string(e.Data), "bubblewrap") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("the missing sandbox must be reported exactly once, got %d", warned)
	}
}

// With a working sandbox, an approved bash call cannot write outside the
// writable set.
func TestSandboxedBashCannotEscape(t *testing.T) {
	if _, err := os.Stat("/usr/bin/bwrap"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bubblewrap must be installed in CI")
		}
		t.Skip("bubblewrap not installed")
	}
	outside := filepath.Join(os.Getenv("HOME"), "chatls-sandbox-escape-probe")
	os.Remove(outside)
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"sandbox": map[string]any{"enabled": true}}}})
	uri := s.open("escape.chat", bashDoc("echo inside > inside.txt; echo x > "+outside+"; echo done"))
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "Read-only file system\ndone\n\n[sandbox: write to "+outside+" refused]\n```")
	if exists(outside) {
		os.Remove(outside)
		t.Fatal("sandboxed bash wrote outside the writable set")
	}
	if !exists(filepath.Join(s.ws, "inside.txt")) {
		t.Error("sandboxed bash must still write inside the workspace")
	}
}
