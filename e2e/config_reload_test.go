package e2e

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/internal/testfs"
)

const echoAllowed = "[tools]\nautoApprove = [\"$default\", \"bash(echo *)\"]\n"

// A user config that breaks — a rule that does not parse, a rule whose
// example fails — keeps the last good configuration and says where the
// error is; a fixed file applies again.
func TestBrokenUserConfigKeepsLastGood(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{}, echoAllowed, "")
	uri := s.open("reload.chat", twoCalls("echo hi", "notes.txt"))
	s.settle(uri)
	if d, trace := s.explain(uri, "toolu_b"); d != "approve" {
		t.Fatalf("the user config approves echo, got %s\n%s", d, trace)
	}

	testfs.Write(t, s.userConfig, "[tools]\nautoApprove = [\"bash(go test\"]\n")
	msg := s.waitMessage(1, s.userConfig+":2: ")
	if !strings.Contains(msg, "bash(go test") || !strings.Contains(msg, "keeping the last good configuration") {
		t.Errorf("the error must name the rule and say the last good configuration stays: %q", msg)
	}
	if d, trace := s.explain(uri, "toolu_b"); d != "approve" {
		t.Errorf("a broken file must keep the last good configuration, got %s\n%s", d, trace)
	}

	testfs.Write(t, s.userConfig, "[tools]\nautoApprove = [\"$default\"]\n\n[[tools.rules]]\nrule = \"bash(git status *)\"\ndecision = \"approve\"\nmatch = [\"git push\"]\n")
	msg = s.waitMessage(1, s.userConfig+":5: ")
	if !strings.Contains(msg, "git push") {
		t.Errorf("the error must name the failing example: %q", msg)
	}
	if d, _ := s.explain(uri, "toolu_b"); d != "approve" {
		t.Errorf("a failing rule example must keep the last good configuration, got %s", d)
	}

	// A good file applies: echo asks again, and reading is denied.
	testfs.Write(t, s.userConfig, "[tools]\nautoApprove = [\"$default\"]\ndeny = [\"read(notes.txt)\"]\n")
	s.waitDecision(uri, "toolu_r", "deny")
	if d, _ := s.explain(uri, "toolu_b"); d != "require_approval" {
		t.Errorf("after a good reload echo must ask, got %s", d)
	}
}

// A broken .chatls.toml keeps its last good version too.
func TestBrokenWorkspaceConfigKeepsLastGood(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{}, "", "[tools]\ndeny = [\"read(notes.txt)\"]\n")
	uri := s.open("ws.chat", twoCalls("echo hi", "notes.txt"))
	s.settle(uri)
	if d, _ := s.explain(uri, "toolu_r"); d != "deny" {
		t.Fatalf("the workspace denies reading notes.txt, got %s", d)
	}
	wsFile := s.ws + "/.chatls.toml"
	testfs.Write(t, wsFile, "[tools]\ndeny = [\"read(notes.txt)\", \"bash(\"]\n")
	s.waitMessage(1, wsFile+":2", "keeping the last good configuration")
	if d, _ := s.explain(uri, "toolu_r"); d != "deny" {
		t.Errorf("the last good .chatls.toml (with its deny) must stay, got %s", d)
	}
}

// Editor settings with a bad rule are refused the same way: the previous
// settings stay and the error is shown. Broken from the start, they have no
// last good version: then every call asks rather than losing deny rules.
func TestBadRuleInEditorSettings(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"autoApprove": []string{"$default", "bash(echo *)"}},
	}}})
	uri := s.open("editor.chat", twoCalls("echo hi", "notes.txt"))
	s.settle(uri)
	if d, _ := s.explain(uri, "toolu_b"); d != "approve" {
		t.Fatalf("initializationOptions approve echo, got %s", d)
	}
	s.changeConfig(map[string]any{"tools": map[string]any{"autoApprove": []string{"bash(go test"}}})
	msg := s.waitMessage(1, "invalid settings", "bash(go test")
	if !strings.Contains(msg, "editor settings") {
		t.Errorf("the error must say it comes from the editor settings: %q", msg)
	}
	if d, _ := s.explain(uri, "toolu_b"); d != "approve" {
		t.Errorf("bad editor settings must keep the previous ones, got %s", d)
	}
	s.changeConfig(map[string]any{"tools": map[string]any{"autoApprove": []string{"$default"}, "deny": []string{"bash(echo *)"}}})
	s.waitDecision(uri, "toolu_b", "deny")

	broken := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"autoApprove": []string{"$default", "bash(go test"}},
	}}})
	uri = broken.open("broken.chat", twoCalls("echo hi", "notes.txt"))
	broken.waitMessage(1, "initializationOptions", "every tool call asks for approval")
	if d, trace := broken.explain(uri, "toolu_r"); d != "require_approval" || !strings.Contains(trace, "bash(go test") {
		t.Errorf("with broken settings and no last good ones, reading must ask and say why; got %s\n%s", d, trace)
	}
}

// A preset defined in one layer may be used in another: the user file
// defines it, the editor settings and .chatls.toml use it.
func TestPresetsAcrossLayers(t *testing.T) {
	user := "[tools.presets.\"$echo\"]\napprove = [\"bash(echo *)\"]\n"
	s := startWithUserConfig(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"autoApprove": []string{"$default", "$echo"}},
	}}}, user, "[tools]\nautoApproveRemove = [\"$echo\"]\n")
	uri := s.open("presets.chat", twoCalls("echo hi", "notes.txt"))
	s.settle(uri)
	// The editor's $echo expands to the user file's rule, which the
	// workspace takes out again (removing narrows: it applies untrusted).
	if d, trace := s.explain(uri, "toolu_b"); d != "require_approval" || !strings.Contains(trace, "removed bash(echo *)") {
		t.Errorf("want the preset's rule removed by the workspace; got %s\n%s", d, trace)
	}
	if msgs := s.messages("unknown preset"); len(msgs) > 0 {
		t.Errorf("a preset of another layer must be known: %q", msgs)
	}
}

// A repository's .chatls.toml that is broken from the start does not turn
// the user's deny into an ask (issue 13, root cause 4): the user's rules
// still decide, and what they do not deny asks.
func TestBrokenWorkspaceConfigKeepsTheUsersDeny(t *testing.T) {
	user := "[tools]\nautoApprove = [\"$default\", \"bash(echo *)\"]\ndeny = [\"bash(echo hi)\"]\n"
	s := startWithUserConfig(t, sessionOptions{}, user, "[tools\nbroken = ")
	uri := s.open("ws-broken.chat", twoCalls("echo hi", "notes.txt"))
	s.waitMessage(1, ".chatls.toml", "every tool call asks for approval")
	if d, trace := s.explain(uri, "toolu_b"); d != "deny" {
		t.Errorf("the user's deny must still deny; got %s\n%s", d, trace)
	}
	if d, trace := s.explain(uri, "toolu_r"); d != "require_approval" || !strings.Contains(trace, "workspace configuration could not be loaded") {
		t.Errorf("everything else asks and says why; got %s\n%s", d, trace)
	}
}
