package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// chatls.explain returns the trace — decision first, then each resolver
// with the rule, file and line — and shows it in the editor as well.
func TestExplainOutput(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{}, echoAllowed, "")
	uri := s.open("explain.chat", twoCalls("echo hi", "notes.txt"))
	s.settle(uri)
	out, err := s.command("chatls.explain", map[string]any{"uri": uri, "id": "toolu_b"})
	if err != nil {
		t.Fatal(err)
	}
	trace, _ := out["trace"].(string)
	lines := strings.Split(strings.TrimRight(trace, "\n"), "\n")
	if out["decision"] != "approve" || lines[0] != "approve" {
		t.Fatalf("explain = %v", out)
	}
	var user string
	for _, l := range lines[1:] {
		if strings.HasPrefix(strings.TrimSpace(l), "user ") {
			user = l
		}
	}
	if !strings.Contains(user, "approve") || !strings.Contains(user, "bash(echo *)") || !strings.Contains(user, s.userConfig+":2") {
		t.Errorf("the user step must give the rule with file:line, got %q in\n%s", user, trace)
	}
	steps, _ := out["steps"].([]any)
	if len(steps) != len(lines)-1 {
		t.Errorf("%d steps but %d trace lines", len(steps), len(lines)-1)
	}
	msg := s.waitMessage(1, "# `bash` (`toolu_b`) runs without asking")
	if !strings.Contains(msg, "```text\n"+trace+"```") || msg != out["markdown"] {
		t.Errorf("the message must be the markdown, with the trace:\n%s\n--- trace:\n%s", msg, trace)
	}
}

// The decision log records the trace of each logged decision, with the
// rule, file and line that decided it.
func TestDecisionLogHasTrace(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"autopilot": false}}}, echoAllowed, "")
	uri := s.open("log.chat", twoCalls("echo hi", "notes.txt"))
	s.settle(uri)
	s.advance(uri) // categorizes: both decisions are logged
	f, err := os.Open(filepath.Join(s.state, "chatls", "decisions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type step struct {
		Resolver, Decision, Rule, File string
		Line                           int
	}
	var found []step
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct {
			ToolID string `json:"tool_id"`
			Source string `json:"source"`
			Trace  []step `json:"trace"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad log line %q: %v", sc.Text(), err)
		}
		if e.ToolID == "toolu_b" && e.Source == "autopilot" {
			found = e.Trace
		}
	}
	var user *step
	for i := range found {
		if found[i].Resolver == "user" {
			user = &found[i]
		}
	}
	if user == nil {
		t.Fatalf("no user step in the logged trace %+v", found)
	}
	if user.Decision != "approve" || user.Rule != "bash(echo *)" || user.File != s.userConfig || user.Line != 2 {
		t.Errorf("logged user step = %+v, want approve by bash(echo *) at %s:2", *user, s.userConfig)
	}
}

// The server pulls workspace/configuration after initialized and again
// when the client says the configuration changed without sending it.
func TestWorkspaceConfigurationPull(t *testing.T) {
	conf := &liveConfig{}
	conf.set(map[string]any{"tools": map[string]any{"autoApprove": []string{"$default", "bash(echo *)"}}})
	s := start(t, sessionOptions{Options: lspclient.Options{Configuration: conf}})
	uri := s.open("pull.chat", twoCalls("echo hi", "notes.txt"))
	s.waitDecision(uri, "toolu_b", "approve")

	conf.set(map[string]any{"tools": map[string]any{"deny": []string{"bash(echo *)"}}})
	s.changeConfig(nil)
	s.waitDecision(uri, "toolu_b", "deny")
}
