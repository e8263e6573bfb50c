package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitLine waits, on file-system events, until path holds one full line.
func waitLine(t *testing.T, path string) string {
	t.Helper()
	data := waitFileFor(t, path, "got a line", func(data []byte) bool { return bytes.HasSuffix(data, []byte("\n")) })
	return strings.TrimSpace(string(data))
}

// waitGone waits until the process pid has ended, through a pidfd (no
// polling). A process that is already gone counts as ended.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(fd)
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
	if err != nil || n != 1 {
		t.Fatalf("process %d (started by a tool) still runs after chatls ended (poll: %d, %v)", pid, n, err)
	}
}

// A signal (or the editor closing chatls's stdin) ends the session cleanly:
// the running tool's process group is killed, including a child that the
// tool put in the background, the run is logged as interrupted, and the
// exit code says what happened (128+N for signal N, 1 for end of input
// without shutdown).
func TestSignalsAndEndOfInputStopTools(t *testing.T) {
	cases := []struct {
		name string
		sig  syscall.Signal
	}{{"SIGTERM", syscall.SIGTERM}, {"SIGINT", syscall.SIGINT}, {"SIGHUP", syscall.SIGHUP}, {"stdin EOF", 0}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Outside the sandbox: inside, $! is a pid of bubblewrap's own
			// namespace, and --die-with-parent ends the tree there.
			s := start(t, sessionOptions{userConfig: "[sandbox]\nenabled = false\n"})
			cmd := "sleep 300 & echo $! > child.pid; wait"
			uri := s.open("sig.chat", strings.Replace(revokeDoc, "touch marker-a", cmd, 1))
			s.settle(uri)
			if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
				t.Fatal(err)
			}
			child, err := strconv.Atoi(waitLine(t, filepath.Join(s.ws, "child.pid")))
			if err != nil {
				t.Fatal(err)
			}
			proc := s.c.Process()
			if c.sig != 0 {
				err = proc.Process.Signal(c.sig)
			} else {
				err = s.c.CloseInput()
			}
			if err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- proc.Wait() }()
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				t.Fatal("chatls did not exit")
			}
			want := 1
			if c.sig != 0 {
				want = 128 + int(c.sig)
			}
			if got := proc.ProcessState.ExitCode(); got != want {
				t.Errorf("exit code %d, want %d (%v)", got, want, proc.ProcessState)
			}
			waitGone(t, child)
			if !interruptedRunLogged(t, s.state, "toolu_m") {
				t.Error("the interrupted run is missing from the decision log")
			}
		})
	}
}

// interruptedRunLogged finds the decision-log entry of an interrupted run.
func interruptedRunLogged(t *testing.T, state, id string) bool {
	t.Helper()
	f, err := os.Open(filepath.Join(state, "chatls", "decisions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct {
			ToolID  string `json:"tool_id"`
			Start   string `json:"start"`
			End     string `json:"end"`
			Outcome string `json:"outcome"`
			Trace   []struct {
				Resolver string `json:"resolver"`
			} `json:"trace"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.ToolID != id || e.Start == "" || e.End == "" {
			continue
		}
		// The outcome says it; the trace stays the policy's own.
		for _, st := range e.Trace {
			if st.Resolver == "chatls" {
				t.Errorf("the trace of an interrupted run has a synthetic chatls step: %s", sc.Bytes())
			}
		}
		return e.Outcome == "interrupted"
	}
	return false
}
