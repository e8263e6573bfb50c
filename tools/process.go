package tools

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// progressInterval bounds how often Env.Progress is called.
const progressInterval = 200 * time.Millisecond

// supervisorGrace bounds the wait for a supervisor to end its call's processes
// (one stuck in uninterruptible sleep delays it); then it is killed itself.
const supervisorGrace = 5 * time.Second

// pipeDrainGrace is how long output may keep flowing after the call's
// processes are gone (unsupervised: a daemon that escaped the group with
// setsid still holding the pipe).
const pipeDrainGrace = 500 * time.Millisecond

// processOutcome says how a process ended.
type processOutcome struct {
	exitCode  int
	timedOut  bool
	cancelled bool
	startErr  error
}

// runProcessGroup starts cmd under a supervisor (supervisor.go) in a new
// session (no controlling terminal, so nothing can block on /dev/tty),
// streams stdout+stderr merged into sink, reports progress, and ends every
// process of the call on timeout, on cancellation and after the main process
// exits (background jobs included). If chatls itself dies, the supervisor
// does it; KillAll does it on a clean shutdown. Without supervision (no
// /proc/self/exe) the tool leads its own process group, which is killed.
// A cmd that failed to resolve (cmd.Err) is reported as a start error.
func runProcessGroup(ctx context.Context, cmd *exec.Cmd, sink *outputSink, timeout time.Duration, progress func(Progress)) processOutcome {
	if cmd.Err != nil {
		return processOutcome{startErr: cmd.Err}
	}
	cmd, life, err := supervised(cmd)
	if err != nil {
		return processOutcome{startErr: err}
	}
	defer life.cut()
	r, w, err := os.Pipe()
	if err != nil {
		return processOutcome{startErr: err}
	}
	cmd.Stdout, cmd.Stderr, cmd.Stdin = w, w, nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if life == nil {
		// Unsupervised: the tool dies with chatls's spawning thread (its
		// background jobs do not; the supervisor exists for them).
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	started := time.Now()
	groupsMu.Lock() // so KillAll cannot miss a call that is starting
	err = cmd.Start()
	if err == nil {
		groups[cmd.Process.Pid] = life
	}
	groupsMu.Unlock()
	life.started()
	if err != nil {
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
	if life != nil {
		// The supervisor kills and reaps the call's processes, then exits.
		life.cut()
		select {
		case <-exited:
		case <-time.After(supervisorGrace):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-exited
		}
	} else {
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
	// Forget the group before reaping its leader: from then on its ID may be reused.
	groupsMu.Lock()
	delete(groups, pgid)
	groupsMu.Unlock()
	err = cmd.Wait() // reaps; the pipe is ours, so this does not wait for output
	out.exitCode = exitCodeOf(cmd.ProcessState, err)
	if life == nil {
		waitGroupGone(pgid, time.Second)
	}

	select {
	case <-copied:
	case <-time.After(pipeDrainGrace):
		r.Close()
		<-copied
	}
	r.Close()
	return out
}

// groups are the running calls by the pid of their group leader (the
// supervisor, or the tool when unsupervised) with their lifeline (nil when
// unsupervised). The leader stays unreaped while listed, so its group ID
// cannot be reused meanwhile.
var (
	groupsMu sync.Mutex
	groups   = map[int]*lifeline{}
)

// KillAll ends every tool process this process is running, with SIGKILL,
// and returns how many calls it stopped. The server calls it when it is about
// to exit (SIGTERM, SIGINT, SIGHUP, end of the LSP session); the calls then
// end as killed processes (exit code 137). It does not wait: the supervisors
// finish the job even if chatls exits right after. Safe to call from a
// signal-handling goroutine and any number of times.
func KillAll() int {
	groupsMu.Lock()
	defer groupsMu.Unlock()
	for pgid, life := range groups {
		if life != nil {
			life.cut()
		} else {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
	return len(groups)
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
