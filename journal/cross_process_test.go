package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// childEnv makes the test binary a journal process of the tests below:
// it opens the journal in that directory and answers commands on stdin.
const childEnv = "CHATLS_JOURNAL_TEST_CHILD"

// journalChild is a running copy of the test binary acting as another
// chatls process on the same journal.
type journalChild struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startJournalChild(t *testing.T, dir string) *journalChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestJournalChildProcess$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &journalChild{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	if got := c.reply(t); got != "ready" {
		t.Fatalf("journal child: %q", got)
	}
	return c
}

func (c *journalChild) send(t *testing.T, line string) {
	t.Helper()
	if _, err := fmt.Fprintln(c.in, line); err != nil {
		t.Fatal(err)
	}
}

func (c *journalChild) reply(t *testing.T) string {
	t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatalf("journal child: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestJournalChildProcess is the child's side (it does nothing in a normal
// run): "run ID" starts ID and, when it may, "runs" it — appends ID to
// runs.txt — and finishes it; "hold ID" starts ID and leaves it running.
func TestJournalChildProcess(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("only run as a child of the cross-process tests")
	}
	j, err := Open(dir)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		verb, id, _ := strings.Cut(in.Text(), " ")
		err := j.Start("doc", id)
		switch {
		case errors.Is(err, ErrStarted):
			fmt.Println("lost", j.State("doc", id))
			continue
		case err != nil:
			fmt.Println("error", err)
			continue
		}
		if verb == "run" {
			f, err := os.OpenFile(filepath.Join(dir, "runs.txt"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err == nil {
				fmt.Fprintln(f, id)
				f.Close()
			}
			j.Finish("doc", id, "ran "+id, false)
		}
		fmt.Println("won")
	}
	os.Exit(0)
}

// Two processes on one journal race to start the same ID, 100 times: each
// time exactly one starts it, and the other sees it running elsewhere or
// finished (SPEC §2: at most once per ID, across processes).
func TestStartRacesBetweenProcesses(t *testing.T) {
	dir := t.TempDir()
	a, b := startJournalChild(t, dir), startJournalChild(t, dir)
	const rounds = 100
	for i := 0; i < rounds; i++ {
		id := fmt.Sprintf("toolu_%03d", i)
		// Both commands go out before either answer is read.
		a.send(t, "run "+id)
		b.send(t, "run "+id)
		ra, rb := a.reply(t), b.reply(t)
		won, lost := ra, rb
		if rb == "won" {
			won, lost = rb, ra
		}
		if won != "won" || !strings.HasPrefix(lost, "lost ") {
			t.Fatalf("round %d: answers %q and %q, want one won and one lost", i, ra, rb)
		}
		if s := strings.TrimPrefix(lost, "lost "); s != fmt.Sprint(int(RunningElsewhere)) && s != fmt.Sprint(int(Finished)) {
			t.Errorf("round %d: the loser sees state %s, want running elsewhere or finished", i, s)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	seen := map[string]int{}
	for _, l := range lines {
		seen[l]++
	}
	if len(lines) != rounds || len(seen) != rounds {
		t.Errorf("runs.txt has %d lines for %d IDs, want %d runs of %d IDs", len(lines), len(seen), rounds, rounds)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s ran %d times", id, n)
		}
	}
	// A third process opening now knows every ID finished.
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if rec, ok := j.Recorded("doc", "toolu_042"); j.State("doc", "toolu_042") != Finished || !ok || rec.Text != "ran toolu_042" {
		t.Errorf("another process's finish: state %v, record %+v", j.State("doc", "toolu_042"), rec)
	}
}

// A start by another live process is running elsewhere, not interrupted;
// once that process is killed (kill -9: no chance to write anything) it is
// interrupted, and still never starts again.
func TestStartOfAKilledProcessIsInterrupted(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	c := startJournalChild(t, dir)
	c.send(t, "hold toolu_h")
	if got := c.reply(t); got != "won" {
		t.Fatalf("child: %q", got)
	}
	if got := j.State("doc", "toolu_h"); got != RunningElsewhere {
		t.Fatalf("state while the other process runs it = %v, want RunningElsewhere", got)
	}
	if err := j.Start("doc", "toolu_h"); !errors.Is(err, ErrStarted) {
		t.Fatalf("a start while another process runs it: %v", err)
	}
	// A journal opened after the start knows it too.
	j2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := j2.State("doc", "toolu_h"); got != RunningElsewhere {
		t.Errorf("state in a journal opened later = %v, want RunningElsewhere", got)
	}
	j2.Close()

	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait() // reaped: the kernel closed its files and dropped its locks
	if got := j.State("doc", "toolu_h"); got != Interrupted {
		t.Fatalf("state after the process died = %v, want Interrupted", got)
	}
	if err := j.Start("doc", "toolu_h"); !errors.Is(err, ErrStarted) {
		t.Errorf("an interrupted tool must never start again: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, liveDir, j.proc)); err != nil {
		t.Errorf("this process's lock file: %v", err)
	}
}

// A process that is gone leaves no lock file behind once another opens
// the journal; a live one's stays.
func TestOpenSweepsLockFilesOfGoneProcesses(t *testing.T) {
	dir := t.TempDir()
	gone, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	goneFile := filepath.Join(dir, liveDir, gone.proc)
	gone.live.Close() // as a crash would: the lock is dropped, the file stays
	gone.live = nil
	defer gone.f.Close()
	startJournalChild(t, dir) // a live process: its file stays
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := os.Stat(goneFile); !os.IsNotExist(err) {
		t.Errorf("the lock file of a gone process is still there: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, liveDir))
	if len(entries) != 2 {
		t.Errorf("live/ holds %d files, want 2 (the child's and this journal's)", len(entries))
	}
}
