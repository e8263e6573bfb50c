//go:build linux

package procsup

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// unsupervisedCall is a command leading its own process group, where there
// is no supervisor: it dies with chatls's spawning thread (its background
// jobs do not; the supervisor exists for them).
type unsupervisedCall struct {
	cmd  *exec.Cmd
	pgid int
	fin  chan struct{}
	code int
}

func startUnsupervised(cmd *exec.Cmd, w *os.File) (*unsupervisedCall, error) {
	cmd.Stdout, cmd.Stderr, cmd.Stdin = w, w, nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	c := &unsupervisedCall{cmd: cmd, fin: make(chan struct{})}
	groupsMu.Lock() // so KillAll cannot miss a call that is starting
	err := cmd.Start()
	if err == nil {
		c.pgid = cmd.Process.Pid
		groups[c] = struct{}{}
	}
	groupsMu.Unlock()
	if err != nil {
		return nil, err
	}
	go c.await()
	return c, nil
}

func (c *unsupervisedCall) await() {
	// Wait without reaping, so the group ID cannot be reused before we kill it.
	var info unix.Siginfo
	for {
		if err := unix.Waitid(unix.P_PID, c.pgid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != unix.EINTR {
			break
		}
	}
	// Forget the group before reaping its leader: from then on its ID may be reused.
	groupsMu.Lock()
	syscall.Kill(-c.pgid, syscall.SIGKILL)
	delete(groups, c)
	groupsMu.Unlock()
	err := c.cmd.Wait() // reaps; the pipe is ours, so this does not wait for output
	c.code = exitCodeOf(c.cmd.ProcessState, err)
	waitGroupGone(c.pgid, time.Second)
	close(c.fin)
}

func (c *unsupervisedCall) done() <-chan struct{} { return c.fin }
func (c *unsupervisedCall) exitCode() int         { return c.code }

// stop kills the group while its leader is unreaped (still listed).
func (c *unsupervisedCall) stop() {
	groupsMu.Lock()
	if _, ok := groups[c]; ok {
		syscall.Kill(-c.pgid, syscall.SIGKILL)
	}
	groupsMu.Unlock()
}

// waitGroupGone waits (bounded) until the process group has disappeared, so
// that when a call returns nothing it started is still running. SIGKILL is
// delivered asynchronously. Called after the leader was reaped: a group ID
// cannot be reused while any member exists, so probing it is safe.
func waitGroupGone(pgid int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for syscall.Kill(-pgid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

// exitCodeOf follows the shell convention: 128+N for death by signal N.
func exitCodeOf(ps *os.ProcessState, err error) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
