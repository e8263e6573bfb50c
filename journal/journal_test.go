package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStartedButUnfinishedIsInterruptedAfterReopen(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Start("file:///a.chat", "t1"); err != nil {
		t.Fatal(err)
	}
	if err := j.Start("file:///a.chat", "t2"); err != nil {
		t.Fatal(err)
	}
	if err := j.Finish("file:///a.chat", "t2", "t2 output", false); err != nil {
		t.Fatal(err)
	}
	if err := j.Start("file:///a.chat", "t1"); err == nil {
		t.Fatal("a second start of t1 in the same process must fail")
	}
	j.Close() // the process "dies" here

	j2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if !j2.Interrupted("file:///a.chat", "t1") {
		t.Error("t1 was started and never finished: it must be reported interrupted")
	}
	if j2.Interrupted("file:///a.chat", "t2") {
		t.Error("t2 finished: it must not be reported interrupted")
	}
	if err := j2.Start("file:///a.chat", "t1"); err == nil {
		t.Error("an interrupted tool must never start again")
	}
	if err := j2.Resolve("file:///a.chat", "t1", stoppedText); err != nil {
		t.Fatal(err)
	}
	if j2.Interrupted("file:///a.chat", "t1") {
		t.Error("resolved tools are no longer interrupted")
	}
	if err := j2.Start("file:///a.chat", "t1"); err == nil {
		t.Error("a resolved tool must still never start again in this process")
	}
}

func TestTornLastLineIsIgnored(t *testing.T) {
	dir := t.TempDir()
	content := `{"event":"start","document":"d","tool_id":"x"}` + "\n" + `{"event":"fin`
	if err := os.WriteFile(dir+"/"+FileName, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if !j.Interrupted("d", "x") {
		t.Error("x must be interrupted")
	}
	if !strings.Contains(stoppedText, "not run again") {
		t.Error("text changed")
	}
}

// A finished tool stays finished across a restart: it must never start
// again, and its result can be written instead (SPEC §2 "at most once").
func TestFinishedSurvivesRestartWithItsResult(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Start("d", "t1"); err != nil {
		t.Fatal(err)
	}
	if got := j.State("d", "t1"); got != Running {
		t.Errorf("state after start = %v, want Running", got)
	}
	if err := j.Finish("d", "t1", "ran\n\"quoted\"", true); err != nil {
		t.Fatal(err)
	}
	if err := j.Start("d", "t1"); err == nil {
		t.Error("a finished tool must not start again in the same process")
	}
	j.Close()

	j2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if got := j2.State("d", "t1"); got != Finished {
		t.Fatalf("state after restart = %v, want Finished", got)
	}
	if err := j2.Start("d", "t1"); !errors.Is(err, ErrStarted) {
		t.Errorf("a tool finished by an earlier process must never start again: %v", err)
	}
	rec, ok := j2.Recorded("d", "t1")
	if !ok || !rec.Known || rec.Text != "ran\n\"quoted\"" || !rec.IsError || rec.Kind != KindOutput || rec.Time.IsZero() {
		t.Errorf("recorded result = %+v, %v", rec, ok)
	}
	if _, ok := j2.Recorded("d", "other"); ok {
		t.Error("an unknown ID has no record")
	}
	if got := j2.State("other-doc", "t1"); got != Unknown {
		t.Errorf("IDs are per document: state = %v", got)
	}
}

// A crash can cut the last line; the next entry must not be glued to it
// and lost, or a start would be forgotten after the following restart.
func TestEntryAfterTornLineIsKept(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`{"event":"start","document":"d","tool_id":"x"}`+"\n"+`{"event":"fin`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Start("d", "y"); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if !j2.Interrupted("d", "y") {
		t.Error("the start written after a torn line was lost")
	}
}

// A finish written by an older chatls without its result still blocks the
// tool; the record says the text is unknown.
func TestFinishWithoutResult(t *testing.T) {
	dir := t.TempDir()
	content := `{"event":"start","document":"d","tool_id":"x"}` + "\n" + `{"event":"finish","document":"d","tool_id":"x","time":"2026-01-02T03:04:05Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	rec, ok := j.Recorded("d", "x")
	if !ok || rec.Known || rec.Time.Format(time.RFC3339) != "2026-01-02T03:04:05Z" {
		t.Errorf("record = %+v, %v", rec, ok)
	}
	if err := j.Start("d", "x"); err == nil {
		t.Error("a finished tool must not start again")
	}
}

// A finished run's record carries the time of its start, in this process
// and after a reopen; a result chatls wrote without running has none.
func TestRecordedKeepsTheStartTime(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().UTC()
	if err := j.Start("d", "ran"); err != nil {
		t.Fatal(err)
	}
	if err := j.Finish("d", "ran", "out", false); err != nil {
		t.Fatal(err)
	}
	if err := j.Resolve("d", "never", stoppedText); err != nil {
		t.Fatal(err)
	}
	check := func(j *Journal, when string) time.Time {
		t.Helper()
		rec, ok := j.Recorded("d", "ran")
		if !ok || rec.Started.IsZero() || rec.Started.Before(before.Add(-time.Second)) || rec.Time.Before(rec.Started) {
			t.Errorf("%s: record %+v must carry a start no later than its finish", when, rec)
		}
		if rec, _ := j.Recorded("d", "never"); !rec.Started.IsZero() {
			t.Errorf("%s: a resolution has no start, got %v", when, rec.Started)
		}
		return rec.Started
	}
	first := check(j, "same process")
	j.Close()
	j2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if again := check(j2, "after reopen"); !again.Equal(first) {
		t.Errorf("start after reopen %v, want %v", again, first)
	}
}

// stoppedText stands for the result chatls writes for an interrupted run
// (cycle.TextInterrupted); the journal stores whatever text it is given.
const stoppedText = "chatls stopped while this tool was running; it was not run again."
