package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// Opening never runs anything, even a placeholder that is already
// `approved` and that the trusted policy approves: it is re-checked and run
// only by chatls.advance; the pending one waits for the user (SPEC §2).
func TestOpeningNeverRunsAnything(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	os.MkdirAll(ws, 0o755)
	if err := os.WriteFile(filepath.Join(ws, ".chatls.toml"), []byte("[tools]\nautoApprove = [\"$default\", \"bash(echo *)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, sessionOptions{ws: ws, Options: lspclient.Options{InitializationOptions: map[string]any{
		"trust": map[string]any{"workspaces": []string{ws, ws + "/**"}}}}})
	doc := twoBashDoc("echo opened-approved >> runs.txt", "echo opened-pending >> runs.txt") +
		"\n**Tool Result:** `b1`\n\n```flemma:tool status=approved\n```\n\n**Tool Result:** `b2`\n\n```flemma:tool status=pending\n```\n"
	uri := s.open("open.chat", doc)
	s.waitDiagnostic(uri, "approval pending: bash: $ echo opened-pending >> runs.txt")
	// The user types; autopilot sees the edit but no approval in it.
	if err := s.c.Replace(s.ctx, uri, "@You:\ngo\n", "@You:\ngo on\n"); err != nil {
		t.Fatal(err)
	}
	s.settle(uri)
	for _, d := range s.c.Diagnostics(uri) {
		if strings.Contains(d.Message, "approved before this session") {
			t.Errorf("the policy approves b1: no re-approval needed, got %q", d.Message)
		}
	}
	noServerEdits(t, s)
	if exists(filepath.Join(ws, "runs.txt")) {
		t.Fatal("opening ran a tool")
	}

	beforeAdvance := time.Now()
	s.advance(uri)
	s.waitText(uri, "**Tool Result:** `b1`\n\n```\n(no output)\n```", "**Tool Result:** `b2`\n\n```flemma:tool status=pending\n```")
	if got := runsOf(t, ws); got != "opened-approved\n" {
		t.Errorf("only the policy-approved call runs, once, on advance: runs.txt = %q", got)
	}
	if e := oneRun(t, s, uri, "b1", "bash"); e.Start.Before(beforeAdvance) || e.Source != "rule" {
		t.Errorf("b1 must start after chatls.advance, approved by the rule: %+v", e)
	}
}
