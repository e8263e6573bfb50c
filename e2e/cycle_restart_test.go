package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// onceDoc approves `echo ran >> runs.txt` through a user config rule: the
// placeholder is already approved, as after a run whose result edit was
// never saved.
func onceDoc() string {
	return strings.Replace(strings.Replace(revokeDoc, "touch marker-a", "echo ran >> runs.txt", 1), "status=pending", "status=approved", 1)
}

var echoRule = lspclient.Options{InitializationOptions: map[string]any{"tools": map[string]any{"autoApprove": []string{"$default", "bash(echo *)"}}}}

// recordedResult matches the block written for a tool the journal already
// saw finish: its recorded output and a note saying when.
var recordedResult = regexp.MustCompile("\\*\\*Tool Result:\\*\\* `toolu_m`\n\n```\n\\(no output\\)\n\n" +
	`\[chatls: recorded result of the run that finished at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; the tool was not run again\.\]` + "\n```")

func runsOf(t *testing.T, ws string) string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(ws, "runs.txt"))
	return string(data)
}

// A finished tool never runs again after a clean restart, even when the
// document is reopened with its approved placeholder (the result edit was
// never saved): the recorded result is written instead (audit A6).
func TestFinishedToolNeverRunsAgainAfterRestart(t *testing.T) {
	base := t.TempDir()
	ws, state := filepath.Join(base, "ws"), filepath.Join(base, "state")
	os.MkdirAll(ws, 0o755)

	s := start(t, sessionOptions{ws: ws, state: state, Options: echoRule})
	uri := s.open("once.chat", onceDoc())
	s.advance(uri)
	s.waitText(uri, "**Tool Result:** `toolu_m`\n\n```\n(no output)\n```")
	if err := s.c.Shutdown(s.ctx); err != nil {
		t.Fatalf("clean shutdown: %v", err)
	}

	s2 := start(t, sessionOptions{ws: ws, state: state, Options: echoRule})
	uri2 := s2.open("once.chat", onceDoc()) // the unsaved buffer: still approved
	s2.advance(uri2)
	s2.waitText(uri2, "the tool was not run again.]")
	if text := s2.c.Doc(uri2).Text; !recordedResult.MatchString(text) {
		t.Errorf("the recorded result was not written as expected:\n%s", text)
	}
	if got := runsOf(t, ws); got != "ran\n" {
		t.Errorf("the tool must have run exactly once across the restart; runs.txt = %q", got)
	}
	if r := s2.advance(uri2); r["phase"] != "send" || r["ready"] != true {
		t.Errorf("after the recorded result nothing is left: %v", r)
	}
}

// The same document restored in the same session (undo after the result
// landed): the ID finished, so the recorded result comes back, no rerun.
func TestUndoneResultIsNotRunAgain(t *testing.T) {
	s := start(t, sessionOptions{Options: echoRule})
	uri := s.open("undo.chat", onceDoc())
	s.advance(uri)
	result := "**Tool Result:** `toolu_m`\n\n```\n(no output)\n```"
	s.waitText(uri, result)
	if err := s.c.Replace(s.ctx, uri, result, "**Tool Result:** `toolu_m`\n\n```flemma:tool status=approved\n```"); err != nil {
		t.Fatal(err)
	}
	s.advance(uri)
	s.waitText(uri, "the tool was not run again.]")
	if got := runsOf(t, s.ws); got != "ran\n" {
		t.Errorf("runs.txt = %q, want one run", got)
	}
}

// A result edit that never lands while the document is open (the editor
// refuses every attempt until the document closes) leaves the placeholder
// in the saved file; the tool still counts as finished: reopened, the next
// advance writes the recorded result and does not run it again (audit: the
// ID was runnable again, then stuck).
func TestResultEditThatNeverLandsIsNotRunAgain(t *testing.T) {
	opts := sessionOptions{Options: echoRule}
	opts.RefuseEdit = func(label string) bool { return label == "chatls: tool result" }
	s := start(t, opts)
	uri := s.open("refused.chat", onceDoc())
	s.advance(uri)
	if err := s.c.WaitFor(60*time.Second, "refusals", func(st *lspclient.State) bool {
		return countEvents(st.Events(), "refused", "") >= 3
	}); err != nil {
		t.Fatal(err)
	}
	if got := runsOf(t, s.ws); got != "ran\n" {
		t.Fatalf("runs.txt = %q, want one run", got)
	}
	if err := s.c.Notify(s.ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
		t.Fatal(err)
	}
	uri = s.open("refused.chat", onceDoc()) // the file as saved: still approved
	s.advance(uri)
	s.waitText(uri, "the tool was not run again.]")
	if got := runsOf(t, s.ws); got != "ran\n" {
		t.Errorf("runs.txt = %q, want one run", got)
	}
}

// A placeholder found approved after a restart whose tool already ran is
// not "approved before this session; approve again to run" (approving
// again would never run it): the diagnostic says advance writes its result.
func TestAlreadyRanPlaceholderDiagnostic(t *testing.T) {
	base := t.TempDir()
	ws, state := filepath.Join(base, "ws"), filepath.Join(base, "state")
	os.MkdirAll(ws, 0o755)
	s := start(t, sessionOptions{ws: ws, state: state})
	uri := s.open("ran.chat", revokeDoc)
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_m`\n\n```\n(no output)\n```")
	if err := s.c.Shutdown(s.ctx); err != nil {
		t.Fatalf("clean shutdown: %v", err)
	}

	s2 := start(t, sessionOptions{ws: ws, state: state})
	stale := strings.Replace(revokeDoc, "status=pending", "status=approved", 1) // the unsaved buffer
	uri2 := s2.open("ran.chat", stale)
	d := s2.waitDiagnostic(uri2, "this tool already ran; run the next step (chatls.advance) to write its result")
	if d.Severity != 3 || d.Code != "already-ran" {
		t.Errorf("want an information diagnostic with code already-ran, got %+v", d)
	}
	for _, d := range s2.c.Diagnostics(uri2) {
		if strings.Contains(d.Message, "approve again to run") {
			t.Errorf("a tool that already ran must not ask to be approved again: %+v", d)
		}
	}
	s2.advance(uri2)
	s2.waitText(uri2, "the tool was not run again.]")
}
