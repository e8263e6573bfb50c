package custom

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
)

// loadedRegistry runs wordcount and the stdio MCP server "local" through a
// Set, as the server does, and returns their real definitions.
func loadedRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	set, reg := newSet(t)
	set.Reconcile(Config{
		Plugins:    []config.Plugin{{Name: "wordcount", Path: wordcountBin}},
		MCPServers: map[string]config.MCPServer{"local": {Command: mcpBin}},
		Timeout:    10 * time.Second,
	})
	waitReady(t, reg)
	if errs := reg.SourceErrors(); len(errs) != 0 {
		t.Fatalf("SourceErrors = %v", errs)
	}
	return reg
}

// decide is the policy's answer for one call under user settings.
func decide(t *testing.T, user config.Settings, tool string, input map[string]any) approval.Decision {
	t.Helper()
	root := t.TempDir()
	e, err := approval.NewEngine(approval.Sources{User: user, UserFile: "config.toml", WorkspaceRoot: root}, nil)
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	v := e.Decide(context.Background(), approval.Call{ID: "toolu_1", Tool: tool, Input: input,
		DocPath: filepath.Join(root, "chat.chat"), WorkspaceRoot: root})
	return v.Decision
}

func approveList(list ...string) config.Settings {
	return config.Settings{Tools: config.Tools{AutoApprove: list}}
}

// An MCP server may annotate a tool as read-only and idempotent; no preset,
// default or sandbox setting approves it for that. Only a rule naming it does.
func TestAnnotationsNeverApprove(t *testing.T) {
	reg := loadedRegistry(t)
	echo, ok := reg.Lookup("local:echo")
	if !ok {
		t.Fatal("local:echo not loaded")
	}
	if ann := echo.Definition().Annotations; ann["readOnlyHint"] != true || ann["idempotentHint"] != true || ann["title"] != "Echo" {
		t.Fatalf("annotations = %v; the test needs a tool that claims to be harmless", ann)
	}
	input := map[string]any{"text": "hi"}
	for name, user := range map[string]config.Settings{
		"no settings":     {},
		"$readonly":       approveList("$readonly"),
		"$standard":       approveList("$standard"),
		"$default + read": approveList("$default", "read", "grep"),
		"other servers":   approveList("remote:*", "*:list_*"),
		"sandbox on":      {Sandbox: config.Sandbox{Enabled: config.SandboxOn.Ptr()}, Tools: config.Tools{AutoApprove: []string{"$standard"}}},
	} {
		if got := decide(t, user, "local:echo", input); got != approval.RequireApproval {
			t.Errorf("%s: local:echo (readOnlyHint) = %s, want require_approval", name, got)
		}
	}
	// The same call is approved once a rule names the tool — and denied by a deny.
	for rule, want := range map[string]approval.Decision{"local:echo": approval.Approve, "local:*": approval.Approve} {
		if got := decide(t, approveList(rule), "local:echo", input); got != want {
			t.Errorf("autoApprove %s: %s, want %s", rule, got, want)
		}
	}
	denied := config.Settings{Tools: config.Tools{AutoApprove: []string{"local:*"}, Deny: []string{"local:echo"}}}
	if got := decide(t, denied, "local:echo", input); got != approval.Deny {
		t.Errorf("approve local:* + deny local:echo = %s, want deny", got)
	}
}

// Argument patterns (docs/policy.md "Other tools") apply to custom tools.
func TestArgumentPatternRulesOnCustomTools(t *testing.T) {
	reg := loadedRegistry(t)
	for _, name := range []string{"wordcount", "local:echo"} {
		if _, ok := reg.Lookup(name); !ok {
			t.Fatalf("%s not loaded", name)
		}
	}
	// Inputs valid against the tools' real schemas.
	md := map[string]any{"path": "notes.md", "text": nil}
	txt := map[string]any{"path": "notes.txt", "text": nil}
	noPath := map[string]any{"path": nil, "text": "hello"}
	secret := map[string]any{"path": "secret.md", "text": nil}
	nested := map[string]any{"path": "docs/guide/a.md", "text": nil}
	for _, in := range []map[string]any{md, txt, noPath, secret, nested} {
		if errs := reg.Validate("wordcount", in); len(errs) != 0 {
			t.Fatalf("input %v rejected by wordcount's schema: %v", in, errs)
		}
	}
	rulesTable := config.Settings{Tools: config.Tools{Rules: []config.Rule{{
		Rule: "wordcount(path=docs/*)", Decision: "approve", Reason: "docs are public",
		Match: []string{"docs/a.md"}, NotMatch: []string{"src/a.go"},
	}}}}
	withDeny := config.Settings{Tools: config.Tools{AutoApprove: []string{"wordcount"}, Deny: []string{"wordcount(path=secret*)"}}}
	tests := []struct {
		name  string
		user  config.Settings
		tool  string
		input map[string]any
		want  approval.Decision
	}{
		{"key=glob matches", approveList("wordcount(path=*.md)"), "wordcount", md, approval.Approve},
		{"key=glob misses", approveList("wordcount(path=*.md)"), "wordcount", txt, approval.RequireApproval},
		{"key=glob on a null argument", approveList("wordcount(path=*.md)"), "wordcount", noPath, approval.RequireApproval},
		{"other key does not count", approveList("wordcount(text=*.md)"), "wordcount", md, approval.RequireApproval},
		{"bare glob uses path", approveList("wordcount(*.md)"), "wordcount", md, approval.Approve},
		{"bare glob misses", approveList("wordcount(*.md)"), "wordcount", txt, approval.RequireApproval},
		{"deny pattern wins", withDeny, "wordcount", secret, approval.Deny},
		{"deny pattern misses", withDeny, "wordcount", md, approval.Approve},
		{"rules table", rulesTable, "wordcount", nested, approval.Approve},
		{"rules table misses", rulesTable, "wordcount", md, approval.RequireApproval},
		{"mcp key=glob", approveList("local:echo(text=hi*)"), "local:echo", map[string]any{"text": "hi there"}, approval.Approve},
		{"mcp key=glob misses", approveList("local:echo(text=hi*)"), "local:echo", map[string]any{"text": "bye"}, approval.RequireApproval},
		{"name pattern is not a server pattern", approveList("wordcount(path=*.md)"), "local:echo", map[string]any{"text": "x.md"}, approval.RequireApproval},
	}
	for _, tt := range tests {
		if got := decide(t, tt.user, tt.tool, tt.input); got != tt.want {
			t.Errorf("%s: %s %v = %s, want %s", tt.name, tt.tool, tt.input, got, tt.want)
		}
	}
}
