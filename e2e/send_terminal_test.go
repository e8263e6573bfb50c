package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// The terminal's file is the user's (SPEC §7 "The terminal is a full
// client"): these tests stop `chatls send` the ways users and machines do.

// startCLISend starts `chatls send FILE` in dir without waiting for it; the
// returned wait gives its exit code and output.
func startCLISend(t *testing.T, dir, userConfig, stateDir string, args ...string) (cmd *exec.Cmd, wait func() (int, string, string)) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config")
	testfs.Write(t, filepath.Join(cfg, "chatls", "config.toml"), userConfig)
	cmd = exec.Command(binary, append([]string{"send"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+stateDir)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		err := cmd.Wait()
		var exit *exec.ExitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.ExitCode()
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
		}
		done <- code
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, func() (int, string, string) {
		select {
		case code := <-done:
			return code, out.String(), errOut.String()
		case <-time.After(2 * time.Minute):
			t.Fatalf("chatls send did not end; stderr:\n%s", errOut.String())
			return 0, "", ""
		}
	}
}

const terminalQuestion = "@You:\nhi\n"

// terminalFile is a.chat holding the question in a fresh directory, and a
// provider that streams "Hello world" and waits for release for the rest.
func terminalFile(t *testing.T) (release chan struct{}, url string, requests *atomic.Int32, dir, file string) {
	t.Helper()
	release = make(chan struct{})
	url, requests = slowChat(t, release)
	dir = t.TempDir()
	file = filepath.Join(dir, "a.chat")
	testfs.Write(t, file, terminalQuestion)
	return release, url, requests, dir, file
}

// kill -9 mid-answer leaves FILE with its old content plus a clean prefix
// of the answer, never shorter, never torn: every write is a rename.
func TestCLISendKilledMidAnswerKeepsTheFile(t *testing.T) {
	release, url, _, dir, file := terminalFile(t)
	cmd, wait := startCLISend(t, dir, slowConfig(url), t.TempDir(), "a.chat")
	waitFileFor(t, file, "got the answer's start", func(d []byte) bool { return bytes.Contains(d, []byte("Hello world")) })
	server := childPIDs(cmd.Process.Pid)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait()
	close(release)
	// The language server it drove sees its input end and exits (it spun
	// for ever, writing to a client that was gone).
	for _, pid := range server {
		waitGone(t, pid)
	}
	data, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(data), terminalQuestion+"\n@Assistant:\nHello world") {
		t.Fatalf("after kill -9 the file is %q", data)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".a.chat.chatls-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left beside it: %v", leftovers)
	}
}

// A second `chatls send` on the same FILE refuses at once, naming the
// first one; the first goes on undisturbed.
func TestCLISendTwiceOnOneFileRefuses(t *testing.T) {
	release, url, requests, dir, file := terminalFile(t)
	state := t.TempDir()
	first, waitFirst := startCLISend(t, dir, slowConfig(url), state, "a.chat")
	waitFileFor(t, file, "got the answer's start", func(d []byte) bool { return bytes.Contains(d, []byte("Hello world")) })
	_, waitSecond := startCLISend(t, dir, slowConfig(url), state, "a.chat")
	code, _, stderr := waitSecond()
	want := "a.chat is being sent by another chatls (pid " + strconv.Itoa(first.Process.Pid) + ")"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("second send: exit %d, stderr %q; want %q", code, stderr, want)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the provider got %d requests", n)
	}
	close(release)
	if code, _, stderr := waitFirst(); code != 0 {
		t.Fatalf("first send: exit %d, %s", code, stderr)
	}
	data, _ := os.ReadFile(file)
	if want := terminalQuestion + "\n@Assistant:\nHello world again.\n\n@You:\n\n"; string(data) != want {
		t.Fatalf("file %q, want %q", data, want)
	}
}

// Ctrl-C ends the request: the abort marker and @You: are in FILE, the
// exit code is 130, and the server chatls send started is gone.
func TestCLISendInterruptedWritesTheMarker(t *testing.T) {
	release, url, _, dir, file := terminalFile(t)
	t.Cleanup(func() { close(release) })
	cmd, wait := startCLISend(t, dir, slowConfig(url), t.TempDir(), "a.chat")
	waitFileFor(t, file, "got the answer's start", func(d []byte) bool { return bytes.Contains(d, []byte("Hello world")) })
	children := childPIDs(cmd.Process.Pid)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := wait()
	data, _ := os.ReadFile(file)
	want := terminalQuestion + "\n@Assistant:\nHello world\n\n<!-- flemma:aborted: Response interrupted by the user. -->\n\n@You:\n\n"
	if code != 130 || string(data) != want || !strings.Contains(stderr, "interrupted") {
		t.Fatalf("exit %d, stderr %q\nfile %q\nwant %q", code, stderr, data, want)
	}
	for _, pid := range children {
		waitGone(t, pid) // awaited: a busy machine reaps it a little later
	}
}

// Another program's edit of FILE while the answer streams is kept; the
// answer goes on at its own place.
func TestCLISendKeepsAnExternalEdit(t *testing.T) {
	release, url, _, dir, file := terminalFile(t)
	_, wait := startCLISend(t, dir, slowConfig(url), t.TempDir(), "a.chat")
	data := waitFileFor(t, file, "got the answer's start", func(d []byte) bool { return bytes.Contains(d, []byte("Hello world")) })
	edited := strings.Replace(string(data), "hi\n", "hi, and a note I added\n", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	// The next piece comes once the edit is in FILE and chatls send saw it.
	time.AfterFunc(500*time.Millisecond, func() { close(release) })
	code, _, stderr := wait()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(file)
	if want := "@You:\nhi, and a note I added\n\n@Assistant:\nHello world again.\n\n@You:\n\n"; string(got) != want {
		t.Fatalf("file %q, want %q (stderr %q)", got, want, stderr)
	}
}

// A call already waiting when the command starts: nothing is sent, exit 2
// with the pending lines (SPEC §7).
func TestCLISendWithACallWaitingExitsPending(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "a.chat"), pendingBashDoc("toolu_w", "echo hi"))
	code, stdout, stderr := runCLISend(t, dir, scriptConfig(t, `{"responses": [{"text": "never sent"}]}`), "a.chat")
	if code != 2 || !strings.HasPrefix(stdout, "pending: bash toolu_w at a.chat:") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func pendingBashDoc(id, command string) string {
	return "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`" + id + "`)\n\n```json\n" +
		`{"command":"` + command + `","timeout":null}` + "\n```\n\n@You:\n\n**Tool Result:** `" + id + "`\n\n```flemma:tool status=pending\n```\n"
}

// childPIDs are the processes whose parent is pid.
func childPIDs(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if n, err := strconv.Atoi(e.Name()); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// An editor's chatls sending a file and a terminal's `chatls send` on it
// refuse each other: one request at a time writes a file.
func TestCLISendRefusesAFileAnEditorIsSending(t *testing.T) {
	s, uri, release, requests := streamingHalfway(t, "shared.chat")
	defer close(release)
	path := strings.TrimPrefix(uri, "file://")
	// What the editor has so far is on disk, as after a save.
	testfs.Write(t, path, s.c.Doc(uri).Text)
	_, wait := startCLISend(t, filepath.Dir(path), slowConfig("http://127.0.0.1:1/v1"), s.state, "shared.chat")
	code, _, stderr := wait()
	if code != 1 || !strings.Contains(stderr, "shared.chat is being sent by another chatls (pid ") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the provider got %d requests", n)
	}
}
