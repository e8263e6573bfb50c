package target

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// notePrefix starts a line on the note channel; exitNote carries the
// script's exit code, so a missing one means the link failed.
const (
	notePrefix = "chatls-note:"
	exitNote   = "chatls-exit:"
)

// wrapScript makes script report on fd 3 (the transport's stderr, which
// carries nothing else of the script's): its notes and, last, its exit
// code. The script's own stderr joins its stdout. It runs in a subshell,
// so an exit in it still reaches the report.
func wrapScript(script string) string {
	return "exec 3>&2 2>&1\n" +
		"chatls_note() { printf '" + notePrefix + "%s\\n' \"$1\" >&3; }\n" +
		"(\n" + script + "\n)\n" +
		"printf '" + exitNote + "%d\\n' \"$?\" >&3\n"
}

// quote quotes s for a POSIX shell (the remote login shell parses the
// command line ssh sends). syntax.Quote declines control characters
// (POSIX has no escapes for them); inside single quotes every byte but
// NUL stands for itself, so those strings are single-quoted whole.
func quote(s string) string {
	if q, err := syntax.Quote(s, syntax.LangPOSIX); err == nil {
		return q
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, "\x00", ""), "'", `'\''`) + "'"
}

// shellWords is argv as one POSIX command line.
func shellWords(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// cappedBuffer keeps the first max bytes written (a transport's messages).
type cappedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// runTransport runs argv (ssh, docker exec, sh) whose script was wrapped
// by wrapScript and reads the report from its stderr. A cancelled ctx
// kills the transport process; what it started on the far side is the
// caller's to stop (Process does).
func runTransport(ctx context.Context, name string, argv []string, stdin io.Reader, out io.Writer) (Exit, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = stdin
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout = out
	report := &cappedBuffer{max: 64 << 10}
	cmd.Stderr = report
	// Output still held by something on the far side must not hold us
	// once the transport is gone.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return Exit{}, &Unreachable{Target: name, Said: err.Error()}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Kill()
		case <-done:
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	exit, ok, said := parseReport(report.String())
	if ok {
		return exit, nil
	}
	if said == "" && waitErr != nil {
		said = waitErr.Error()
	}
	if ctx.Err() != nil {
		said = "stopped: " + context.Cause(ctx).Error()
	}
	return exit, &Unreachable{Target: name, Said: said, Started: true}
}

// parseReport splits the transport's stderr into the script's notes and
// exit code and what the transport itself said.
func parseReport(s string) (exit Exit, ok bool, said string) {
	var other []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, exitNote):
			if n, err := strconv.Atoi(line[len(exitNote):]); err == nil {
				exit.Code, ok = n, true
			}
		case strings.HasPrefix(line, notePrefix):
			exit.Notes = append(exit.Notes, line[len(notePrefix):])
		case strings.TrimSpace(line) != "":
			other = append(other, line)
		}
	}
	return exit, ok, strings.Join(other, "; ")
}
