package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// While a tool runs its placeholder's hint says `running Ns · PREVIEW` and
// the hover shows when it started; the server asks the client to refresh
// inlay hints when the tool starts and again when it has finished, after
// which no hint says running and the hover says when it started and
// finished, and how long it took.
func TestRunningToolHintHoverAndRefreshes(t *testing.T) {
	s := start(t, sessionOptions{})
	gate := filepath.Join(s.ws, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	// The command blocks reading the FIFO until the test writes a line.
	uri := s.open("running.chat", surfaceDoc(pendingResult("r1"),
		[3]string{"bash", "r1", `{"command":"read -r word < gate; echo \"released $word\"","timeout":null}`}))
	s.waitDiagnostic(uri, "approval pending")
	before := refreshes(s.c.Events())

	s.applyAction(uri, "status=pending", "Approve bash")
	// $/progress begin is sent once the tool has really started (a slot was
	// free and the journal recorded it), after the start's refresh.
	if err := s.c.WaitFor(20*time.Second, "the tool to start", func(st *lspclient.State) bool {
		return refreshes(st.Events()) > before && len(st.ProgressKinds()) > 0
	}); err != nil {
		t.Fatal(err)
	}
	hints := s.inlayHints(uri)
	opener := s.lineOf(uri, "```flemma:tool status=approved")
	running := regexp.MustCompile(`^running \d+s · bash: \$ read -r word < gate; echo "released \$word"$`)
	if len(hints) != 1 || hints[0].Position.Line != opener || !running.MatchString(hints[0].Label) {
		t.Errorf("while running: hints %+v, want one on line %d matching %s", hints, opener, running)
	}
	status := regexp.MustCompile(`\*\*Status:\*\* running · started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, running for \d`)
	if h := s.hover(uri, "`bash` (`r1`)"); !status.MatchString(h) {
		t.Errorf("hover while running must show the start and the elapsed time, got:\n%s", h)
	}

	release(t, gate, "go")
	s.waitText(uri, "**Tool Result:** `r1`\n\n```\nreleased go\n```")
	// The finish's refresh comes after the result was written.
	if err := s.c.WaitFor(20*time.Second, "a refresh after the result", func(st *lspclient.State) bool {
		written := -1
		for i, e := range st.Events() {
			if e.Kind == "applyEdit" && strings.Contains(e.After, "released go") && written < 0 {
				written = i
			}
			if written >= 0 && i > written && e.Kind == "refresh" && e.Label == "workspace/inlayHint/refresh" {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	for _, h := range s.inlayHints(uri) {
		if strings.HasPrefix(h.Label, "running") {
			t.Errorf("after the tool finished a hint still says running: %+v", h)
		}
	}
	// The start and finish come from the execution journal.
	done := regexp.MustCompile(`\*\*Status:\*\* done · started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, finished (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d after \d`)
	if h := s.hover(uri, "`bash` (`r1`)"); !done.MatchString(h) {
		t.Errorf("hover after the run must show when it started and finished and how long it took, got:\n%s", h)
	}
}

// release writes a line to the FIFO, unblocking the reader: opening it
// for writing waits until the tool opens it for reading. If nothing does
// (the tool never started), the test fails instead of hanging.
func release(t *testing.T, fifo, line string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(line + "\n")
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		// Unblock the writer before failing.
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer f.Close()
		}
		t.Fatalf("no tool opened %s for reading", fifo)
	}
}
