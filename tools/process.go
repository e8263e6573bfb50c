package tools

import (
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// progressInterval bounds how often Env.Progress is called.
const progressInterval = 200 * time.Millisecond

// pipeDrainGrace is how long output may keep flowing after the process group
// is gone (a daemon that escaped with setsid still holding the pipe).
const pipeDrainGrace = 500 * time.Millisecond

// processOutcome says how a process ended.
type processOutcome struct {
	exitCode  int
	timedOut  bool
	cancelled bool
	startErr  error
}

// runProcessGroup starts cmd in its own session (hence its own process group,
// and no controlling terminal, so nothing can block on /dev/tty), streams
// stdout+stderr merged into sink, reports progress, and kills the whole group
// on timeout, on cancellation and after the main process exits (background
// jobs included). Pdeathsig kills the child if the server dies (it fires when
// the spawning OS thread exits; Go keeps threads alive unless a goroutine
// locked to one ends, which chatls never does). Grandchildren are only
// covered by Runner.CancelAll on shutdown, or by the sandbox's pid namespace.
func runProcessGroup(ctx context.Context, cmd *exec.Cmd, sink *outputSink, timeout time.Duration, progress func(Progress)) processOutcome {
	r, w, err := os.Pipe()
	if err != nil {
		return processOutcome{startErr: err}
	}
	cmd.Stdout, cmd.Stderr, cmd.Stdin = w, w, nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return processOutcome{startErr: err}
	}
	w.Close() // the children hold the only write ends now
	pgid := cmd.Process.Pid

	copied := make(chan struct{})
	go func() {
		buf := make([]byte, 64*1024)
		io.CopyBuffer(sink, r, buf)
		close(copied)
	}()

	// Wait without reaping, so the group ID cannot be reused before we kill it.
	exited := make(chan struct{})
	go func() {
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pgid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if err != unix.EINTR {
				break
			}
		}
		close(exited)
	}()

	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	ticker := time.NewTicker(progressInterval)
	defer ticker.Stop()

	var out processOutcome
wait:
	for {
		select {
		case <-exited:
			break wait
		case <-timer:
			out.timedOut = true
			break wait
		case <-ctx.Done():
			out.cancelled = true
			break wait
		case <-ticker.C:
			if progress != nil {
				progress(Progress{ElapsedMillis: time.Since(started).Milliseconds(), LastLine: sink.lastLine()})
			}
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-exited
	err = cmd.Wait() // reaps; the pipe is ours, so this does not wait for output
	out.exitCode = exitCodeOf(cmd.ProcessState, err)
	waitGroupGone(pgid, time.Second)

	select {
	case <-copied:
	case <-time.After(pipeDrainGrace):
		r.Close()
		<-copied
	}
	r.Close()
	return out
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
