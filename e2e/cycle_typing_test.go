package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// makeGate makes a FIFO a tool blocks on until the test opens it: the test decides
// when the tool ends, without timing.
func makeGate(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// openGate lets the tool blocked on the FIFO go on.
func openGate(t *testing.T, fifo string) {
	t.Helper()
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the tool reads
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
}

// The user types into the block of a running tool: their text is the result
// (content-overwrite protection), the tool's output is saved to a file that a
// note after their text names, and the block is resolved, not stuck (audit:
// the output was dropped and advance waited forever).
func TestTypingIntoRunningBlockKeepsBoth(t *testing.T) {
	s := start(t, sessionOptions{})
	makeGate(t, s.ws, "gate")
	cmd := "touch started; read x < gate; echo tool-output-line"
	uri := s.open("typing.chat", strings.Replace(revokeDoc, "touch marker-a", cmd, 1))
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(s.ws, "started"), "")
	if err := s.c.Replace(s.ctx, uri, "status=approved\n", "status=approved\nmy own note\n"); err != nil {
		t.Fatal(err)
	}
	s.settle(uri)
	openGate(t, filepath.Join(s.ws, "gate"))

	s.waitText(uri, "the tool's output is saved in ")
	text := s.c.Doc(uri).Text
	m := regexp.MustCompile("\\*\\*Tool Result:\\*\\* `toolu_m`\n\n```\nmy own note\n\n" +
		`\[chatls: you wrote in this block while the tool ran, so your text is the result; the tool's output is saved in (\S+)\]` + "\n```\n$").FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the block must carry the user's text and the note:\n%s", text)
	}
	if data, err := os.ReadFile(m[1]); err != nil || string(data) != "tool-output-line" {
		t.Errorf("the saved output %s = %q, %v", m[1], data, err)
	}
	if r := s.advance(uri); r["phase"] != "send" || r["ready"] != true {
		t.Errorf("the block must be resolved, advance says %v", r)
	}
	if strings.Contains(s.c.Doc(uri).Text, "status=") {
		t.Errorf("no placeholder may be left:\n%s", s.c.Doc(uri).Text)
	}
}
