package journal

import (
	"os"
	"strings"
	"testing"
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
	if err := j.Finish("file:///a.chat", "t2"); err != nil {
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
	if err := j2.Resolve("file:///a.chat", "t1"); err != nil {
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
	if !strings.Contains(StoppedText, "not run again") {
		t.Error("text changed")
	}
}
