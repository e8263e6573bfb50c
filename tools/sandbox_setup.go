package tools

import (
	"bytes"
	"io"
	"os"
	"time"
)

// SandboxSetup tells whether bubblewrap set the sandbox up and started the
// command. It can fail after chatls's scan for reasons the scan cannot
// prevent: a path it mounts is removed by another program between
// bubblewrap's bind and its remount ("Unable to remount destination …: No
// such file or directory"; a test suite cleaning its repositories in /tmp,
// seen in CI). Such a call never ran the command, so it may be tried again
// on a fresh scan; a call that started the command must never run twice.
//
// The proof is bubblewrap's --json-status-fd: it writes {"exit-code": N}
// only once the command was started (set-up finished and exec'd), and
// nothing of the kind when set-up failed.
type SandboxSetup struct {
	r, w *os.File
}

// newSandboxSetup is the status pipe of one bubblewrap; nil without one.
func newSandboxSetup() *SandboxSetup {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	return &SandboxSetup{r: r, w: w}
}

// statusFD is the descriptor bubblewrap writes its status to: the command's
// first extra file (exec.Cmd.ExtraFiles[0]).
const statusFD = "3"

// withStatusFD is bubblewrap's options (ending in "--") with its status
// written to fd.
func withStatusFD(opts []string, fd string) []string {
	return append(trimSeparator(opts), "--json-status-fd", fd, "--")
}

// Failed reports, once the command has ended (every process of the call
// gone), whether bubblewrap gave up before starting the command. Only a
// plain exit of bubblewrap counts: a call that was cancelled, timed out or
// killed is not a failed set-up, whatever its status says. It closes the
// pipe; a nil setup never failed.
func (s *SandboxSetup) Failed(exitCode int, stopped bool) bool {
	if s == nil {
		return false
	}
	defer s.Close()
	if stopped || exitCode != 1 {
		return false // bubblewrap's own failures exit 1: most calls end here, unread
	}
	s.w.Close() // the only writer left was bubblewrap, gone now
	// Bounded: a writer that survived (it cannot: bubblewrap keeps the fd
	// from the command) must not hang the call.
	s.r.SetReadDeadline(time.Now().Add(time.Second))
	status, err := io.ReadAll(s.r)
	if err != nil {
		return false // unsure: never run a command twice
	}
	// Not a parse: the line's key is all that matters, and bubblewrap's
	// format (one JSON object per line, spaced) may change its spacing.
	return !bytes.Contains(status, []byte(`"exit-code"`))
}

// Close releases the pipe (Failed does too); safe more than once.
func (s *SandboxSetup) Close() {
	if s != nil {
		s.w.Close()
		s.r.Close()
	}
}
