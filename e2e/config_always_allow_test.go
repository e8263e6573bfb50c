package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// In an untrusted workspace a rule in .chatls.toml would have no effect:
// "Always allow" writes it to the user config instead, says so, and the
// pending call it covers is approved and runs.
func TestAlwaysAllowInUntrustedWorkspaceWritesUserConfig(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{}, "# my settings\n", "# repo settings\n")
	uri := s.open("allow.chat", bashDoc("echo allowed-by-rule"))
	s.settle(uri)
	var args map[string]any
	for _, a := range s.codeActions(uri, "status=pending") {
		if strings.HasPrefix(a.Title, "Always allow bash(echo *)") && a.Command != nil {
			args = a.Command.Arguments[0]
		}
	}
	if args == nil {
		t.Fatal("no Always allow action with the exact rule bash(echo *)")
	}
	out, err := s.command("chatls.alwaysAllow", args)
	if err != nil {
		t.Fatal(err)
	}
	if out["scope"] != "user" || out["file"] != s.userConfig {
		t.Errorf("the rule must go to the user config, got %v", out)
	}
	s.waitText(uri, "```\nallowed-by-rule\n```")
	msg := s.waitMessage(1, "not a trusted workspace")
	if !strings.Contains(msg, "bash(echo *)") || !strings.Contains(msg, s.userConfig) {
		t.Errorf("the message must name the rule and the file it went to: %q", msg)
	}
	user, _ := os.ReadFile(s.userConfig)
	if !strings.Contains(string(user), "# my settings") || !strings.Contains(string(user), `"bash(echo *)"`) {
		t.Errorf("user config:\n%s", user)
	}
	ws, _ := os.ReadFile(filepath.Join(s.ws, ".chatls.toml"))
	if string(ws) != "# repo settings\n" {
		t.Errorf(".chatls.toml of an untrusted workspace must stay as it was:\n%s", ws)
	}
}

// A rule that does not parse is refused before any file is touched.
func TestAlwaysAllowRefusesBadRule(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{}, "", "")
	uri := s.open("bad.chat", bashDoc("echo x"))
	s.settle(uri)
	_, err := s.command("chatls.alwaysAllow", map[string]any{"uri": uri, "id": "toolu_m", "scope": "user", "rule": "bash(echo"})
	if err == nil || !strings.Contains(err.Error(), "bash(echo") {
		t.Fatalf("a bad rule must be refused with its text, got %v", err)
	}
	if exists(s.userConfig) {
		data, _ := os.ReadFile(s.userConfig)
		t.Errorf("nothing may be written for a bad rule:\n%s", data)
	}
}
