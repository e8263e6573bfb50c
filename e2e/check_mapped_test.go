package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

// checkOutput runs `chatls check name` and returns stdout with the name
// taken out of every line, the exit code and stderr.
func checkOutput(t *testing.T, name string) (string, int, string) {
	t.Helper()
	// A check that waits forever (a pipe opened twice) fails, not hangs.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code, stdout, stderr := runCommand(t, exec.CommandContext(ctx, binary, "check", name))
	return strings.ReplaceAll(stdout, name+":", ""), code, stderr
}

// A large file, which check maps, gets the report a pipe of the same bytes
// gets (read: a pipe cannot be mapped).
func TestCheckOfAMappedFileEqualsCheckOfAPipe(t *testing.T) {
	text := chatgen.Generate(3<<20, 11) + "\n@Assistant:\n**Tool Use:** `read` (`toolu_e1`)\n```json\n{\"path\":\n```\n"
	dir := t.TempDir()
	file, fifo := filepath.Join(dir, "big.chat"), filepath.Join(dir, "pipe.chat")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() { // opening blocks until check opens the other end
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.WriteString(text)
			f.Close()
		}
	}()
	piped, pipedCode, pipedErr := checkOutput(t, fifo)
	mapped, mappedCode, mappedErr := checkOutput(t, file)
	if mapped != piped || mappedCode != pipedCode || mappedCode != 1 || mappedErr+pipedErr != "" {
		t.Fatalf("mapped (exit %d, %q):\n%s\npiped (exit %d, %q):\n%s", mappedCode, mappedErr, mapped, pipedCode, pipedErr, piped)
	}
	if !strings.Contains(mapped, "error: Failed to parse tool input") {
		t.Fatalf("the report misses the broken input:\n%s", mapped)
	}
}

// An editor that saves in place truncates the file and writes it again,
// maybe while check reads it from a mapping: reading a page lost to the
// truncation faults. Check must not crash: each run reports on what the
// file held (the whole text, or a part being written, as a read would), or
// says that the file shrank while it was read again.
func TestCheckWhileTheFileIsSavedInPlace(t *testing.T) {
	text := chatgen.Generate(4<<20, 12)
	name := filepath.Join(t.TempDir(), "saved.chat")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	saves := make(chan int)
	go func() {
		n := 0
		for !stop.Load() {
			if err := os.WriteFile(name, []byte(text), 0o644); err != nil { // O_TRUNC, then write
				t.Error(err)
				break
			}
			n++
		}
		saves <- n
	}()
	defer func() {
		stop.Store(true)
		if n := <-saves; n < 10 && !t.Failed() {
			t.Errorf("only %d saves happened during 60 checks", n)
		}
	}()
	for range 60 {
		_, code, stderr := checkOutput(t, name)
		reported := code <= 1 && stderr == ""
		shrank := code == 2 && strings.HasPrefix(stderr, "chatls check: the file shrank while being read")
		if !reported && !shrank {
			t.Fatalf("exit %d, stderr:\n%.3000s", code, stderr)
		}
	}
}
