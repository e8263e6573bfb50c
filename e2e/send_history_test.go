package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// A file Flemma sends can be sent by chatls: a tool use of an earlier turn
// that has no result is history (SPEC §2), sent with the synthetic result,
// and blocks nothing.
func TestCLISendSendsPastAnOrphanOfAnEarlierTurn(t *testing.T) {
	dir := t.TempDir()
	doc := "@You:\nfirst\n\n@Assistant:\n**Tool Use:** `bash` (`toolu_old`)\n\n```json\n{\"command\":\"echo orphan > ran\"}\n```\n\n" +
		"@You:\nnever mind that\n\n@Assistant:\nSure.\n\n@You:\nthird\n"
	testfs.Write(t, filepath.Join(dir, "a.chat"), doc)
	code, stdout, stderr := runCLISend(t, dir, scriptConfig(t, `{"responses": [{"text": "Answered."}]}`), "a.chat")
	if code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "a.chat"))
	if want := doc + "\n@Assistant:\nAnswered.\n\n@You:\n\n"; string(b) != want {
		t.Fatalf("file:\n%q\nwant\n%q", b, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the orphan ran")
	}
}

// An answer pasted into the file (tool calls and all) is taken as the
// editor's next step would take it: its calls get placeholders, and one
// that needs approval stops the command at exit 2.
func TestCLISendTakesTheCallsOfAPastedAnswer(t *testing.T) {
	dir := t.TempDir()
	doc := "@You:\nfirst\n\n@Assistant:\nLet me look.\n\n**Tool Use:** `bash` (`toolu_p`)\n\n```json\n{\"command\":\"echo pasted > ran\"}\n```\n\n@You:\n"
	testfs.Write(t, filepath.Join(dir, "a.chat"), doc)
	code, stdout, stderr := runCLISend(t, dir, scriptConfig(t, `{"responses": [{"text": "never sent"}]}`), "a.chat")
	if code != 2 || !strings.HasPrefix(stdout, "pending: bash toolu_p at a.chat:") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "a.chat"))
	if !strings.Contains(string(b), "**Tool Result:** `toolu_p`\n\n```flemma:tool status=pending\n```") || strings.Contains(string(b), "never sent") {
		t.Fatalf("file:\n%s", b)
	}
}
