package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/internal/testfs"
)

// Approving from the terminal (SPEC §7 "The terminal is a full client"): a
// placeholder chatls issued as pending that FILE now says approved, with the
// same input, is the user's decision and runs on the next `chatls send FILE`,
// once; one chatls never issued, or whose input changed, does not run.

// markerCommand is the call the model asks for: it appends to marker, so a
// run shows in the file and a second run twice.
const markerCommand = "echo ran >> marker; echo marked"

// approveByEditConfig is a model that asks for one bash call appending to
// marker, then answers "All done." after its result.
func approveByEditConfig(t *testing.T, command string) string {
	return scriptConfig(t, `{"responses": [
 {"toolUses": [{"id": "toolu_e1", "name": "bash", "input": {"command": "`+command+`"}}]},
 {"text": "All done."}]}`)
}

// issuePending runs the first `chatls send` on a fresh question: it stops at
// the pending placeholder it issued (exit 2).
func issuePending(t *testing.T, dir, config, state string) string {
	t.Helper()
	file := filepath.Join(dir, "a.chat")
	testfs.Write(t, file, "@You:\nmake a marker\n")
	_, wait := startCLISend(t, dir, config, state, "a.chat")
	code, stdout, stderr := wait()
	if code != 2 || !strings.HasPrefix(stdout, "pending: bash toolu_e1 at a.chat:") {
		t.Fatalf("first send: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), "status=pending") {
		t.Fatalf("no pending placeholder in:\n%s", b)
	}
	return string(b)
}

func editFile(t *testing.T, file, old, new string) {
	t.Helper()
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), old) {
		t.Fatalf("%q not in:\n%s", old, b)
	}
	testfs.Write(t, file, strings.Replace(string(b), old, new, 1))
}

func TestCLISendRunsACallApprovedByEditingTheFile(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	config := approveByEditConfig(t, markerCommand)
	issuePending(t, dir, config, state)
	file := filepath.Join(dir, "a.chat")
	editFile(t, file, "status=pending", "status=approved")

	_, wait := startCLISend(t, dir, config, state, "a.chat")
	code, stdout, stderr := wait()
	if code != 0 {
		t.Fatalf("second send: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, _ := os.ReadFile(file)
	text := string(b)
	if !strings.Contains(text, "**Tool Result:** `toolu_e1`\n```\nmarked\n```") || strings.Count(text, "All done.") != 1 {
		t.Fatalf("want the result and one final answer, got:\n%s", text)
	}
	if m, _ := os.ReadFile(filepath.Join(dir, "marker")); string(m) != "ran\n" {
		t.Fatalf("marker = %q, want one run", m)
	}
	// Sent again with the approved block put back (an undo in the user's
	// editor): the journal knows it ran; it does not run twice.
	testfs.Write(t, file, strings.Replace(issuedText(t, text), "status=pending", "status=approved", 1))
	_, wait = startCLISend(t, dir, config, state, "a.chat")
	wait()
	if m, _ := os.ReadFile(filepath.Join(dir, "marker")); string(m) != "ran\n" {
		t.Fatalf("after a third send marker = %q, want one run", m)
	}
}

// issuedText is text cut back to the pending placeholder the first send left.
func issuedText(t *testing.T, text string) string {
	t.Helper()
	i := strings.Index(text, "**Tool Result:** `toolu_e1`")
	if i < 0 {
		t.Fatalf("no result in:\n%s", text)
	}
	return text[:i] + "**Tool Result:** `toolu_e1`\n\n```flemma:tool status=pending\n```\n"
}

func TestCLISendDoesNotRunAnApprovalChatlsNeverIssued(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	config := approveByEditConfig(t, markerCommand)
	// The same document typed by hand (or pasted from elsewhere), already
	// approved: chatls never issued this placeholder.
	testfs.Write(t, filepath.Join(dir, "a.chat"), strings.Replace(pendingBashDoc("toolu_e1", markerCommand), "status=pending", "status=approved", 1))
	sendAsksAgainAndRunsNothing(t, dir, config, state, "an approval chatls never issued")
}

func TestCLISendDoesNotRunAnApprovalWhoseInputChanged(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	config := approveByEditConfig(t, markerCommand)
	issuePending(t, dir, config, state)
	file := filepath.Join(dir, "a.chat")
	editFile(t, file, "status=pending", "status=approved")
	editFile(t, file, "echo ran >> marker", "echo changed >> marker")
	sendAsksAgainAndRunsNothing(t, dir, config, state, "an approval for another input")
}

// sendAsksAgainAndRunsNothing runs `chatls send` on an approval that does
// not count: the call is set back to pending (exit 2) and never ran.
func sendAsksAgainAndRunsNothing(t *testing.T, dir, config, state, what string) {
	t.Helper()
	_, wait := startCLISend(t, dir, config, state, "a.chat")
	code, stdout, stderr := wait()
	if code != 2 || !strings.HasPrefix(stdout, "pending: bash toolu_e1 at a.chat:") {
		t.Fatalf("%s: exit %d, stdout %q, stderr %q", what, code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Fatalf("%s ran", what)
	}
}

// A rejection typed into FILE is the user's too: the next send writes the
// rejection and goes on to the model's final answer; nothing runs.
func TestCLISendWritesARejectionMadeByEditingTheFile(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	config := approveByEditConfig(t, markerCommand)
	issuePending(t, dir, config, state)
	file := filepath.Join(dir, "a.chat")
	editFile(t, file, "status=pending", "status=rejected")
	_, wait := startCLISend(t, dir, config, state, "a.chat")
	code, stdout, stderr := wait()
	if code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), "**Tool Result:** `toolu_e1` (error)\n```\n"+cycle.TextRejected+"\n```") || strings.Count(string(b), "All done.") != 1 {
		t.Fatalf("want the rejection and one final answer, got:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Fatal("a rejected call ran")
	}
}
