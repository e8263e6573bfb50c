package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// alwaysAllowAction is the "Always allow" action at the pending placeholder.
func alwaysAllowAction(s *session, uri string) (title string, args map[string]any) {
	s.t.Helper()
	for _, a := range s.codeActions(uri, "status=pending") {
		if strings.HasPrefix(a.Title, "Always allow ") && a.Command != nil {
			return a.Title, a.Command.Arguments[0]
		}
	}
	s.t.Fatal("no Always allow action")
	return "", nil
}

// In an untrusted workspace a rule in .chatls.toml would have no effect:
// "Always allow" writes it to the user config instead (its title says so),
// and the pending call it covers is approved and runs. The command given
// scope "workspace" there falls back to the user config and says why.
func TestAlwaysAllowInUntrustedWorkspaceWritesUserConfig(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{}, "# my settings\n", "# repo settings\n")
	uri := s.open("allow.chat", bashDoc("echo allowed-by-rule"))
	s.settle(uri)
	title, args := alwaysAllowAction(s.session, uri)
	if want := "Always allow bash(echo *) everywhere (in your user config)"; title != want || args["scope"] != "user" || args["rule"] != "bash(echo *)" {
		t.Fatalf("action %q %v, want %q with scope user", title, args, want)
	}
	out, err := s.command("chatls.alwaysAllow", args)
	if err != nil {
		t.Fatal(err)
	}
	if out["scope"] != "user" || out["file"] != s.userConfig {
		t.Errorf("the rule must go to the user config, got %v", out)
	}
	s.waitText(uri, "```\nallowed-by-rule\n```")
	args["scope"] = "workspace" // as a key map that always says workspace would
	if out, err := s.command("chatls.alwaysAllow", args); err != nil || out["scope"] != "user" {
		t.Fatalf("scope workspace in an untrusted workspace must fall back to the user config: %v %v", out, err)
	}
	// Each time: the rule, the file, and what trusting the folder takes.
	msg := s.waitMessage(1, "added bash(echo *) to tools.autoApprove in "+s.userConfig, "1 waiting call is now approved")
	for _, want := range []string{"applies in every workspace", "trust.workspaces", filepath.Join(s.ws, ".chatls.toml")} {
		if !strings.Contains(msg, want) {
			t.Errorf("the first message must say %q: %q", want, msg)
		}
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

// In a trusted workspace the action keeps SPEC §3's title and writes the
// workspace file.
func TestAlwaysAllowTitleInTrustedWorkspace(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	s := startWithUserConfig(t, sessionOptions{ws: ws}, "[trust]\nworkspaces = [\""+ws+"\"]\n", "# repo settings\n")
	uri := s.open("allow.chat", bashDoc("echo trusted"))
	s.settle(uri)
	title, args := alwaysAllowAction(s.session, uri)
	if want := "Always allow bash(echo *) in this workspace"; title != want || args["scope"] != "workspace" {
		t.Fatalf("action %q %v, want %q with scope workspace", title, args, want)
	}
	out, err := s.command("chatls.alwaysAllow", args)
	if err != nil || out["scope"] != "workspace" || out["file"] != filepath.Join(ws, ".chatls.toml") {
		t.Fatalf("the rule must go to the workspace file: %v %v", out, err)
	}
	s.waitText(uri, "```\ntrusted\n```")
}
