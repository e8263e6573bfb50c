package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// An agent following a long command (terminal/output while it runs, as
// Claude Code's BashOutput does) sees what it printed so far; before, it
// saw nothing until the command ended, so an agent waiting for a line a
// server prints at start-up waited forever. The command runs until the
// agent has seen its first line and creates the stop file.
func TestAgentFollowsARunningTerminal(t *testing.T) {
	dir := t.TempDir()
	stop := filepath.Join(dir, "stop")
	file := filepath.Join(dir, "a.chat")
	testfs.Write(t, file, "@You:\nliveterminal "+stop+"\n")
	code, _, stderr := runCLISend(t, dir, agentConfig(t, nil, "[tools]\nautoApprove = [\"bash\"]\n"), "a.chat")
	data, _ := os.ReadFile(file)
	text := string(data)
	if code != 0 || !strings.Contains(text, `While running: "first". At the end: "first\nsecond".`) {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr, text)
	}
}
