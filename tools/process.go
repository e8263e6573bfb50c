package tools

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/chatls/chatls/internal/keyenv"
	"github.com/chatls/chatls/internal/procsup"
	"golang.org/x/sys/unix"
)

// progressInterval bounds how often Env.Progress is called.
const progressInterval = 200 * time.Millisecond

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

// copyBuffers are the buffers output is read with, reused across calls.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64*1024); return &b }}

// runningProcess is a started call, supervised or not.
type runningProcess interface {
	done() <-chan struct{} // closed once no process of the call is left
	stop()                 // ends them all; safe more than once, from any goroutine
	exitCode() int         // after done: 128+N for death by signal N
}

// runProcessGroup runs cmd under a supervisor (supervisor.go) in a session of
// its own (no controlling terminal, so nothing can block on /dev/tty),
// streams stdout+stderr merged into sink, reports progress, and ends every
// process of the call on timeout, on cancellation and after the main process
// exits (background jobs included). If chatls itself dies, the supervisor
// does it; KillAll does it on a clean shutdown. Without supervision (no
// /proc/self/exe) the tool leads its own process group, which is killed.
// The command gets cmd's path, argv, directory and environment (nil: ours).
// A cmd that failed to resolve (cmd.Err) is reported as a start error.
func runProcessGroup(ctx context.Context, cmd *exec.Cmd, sink *outputSink, timeout time.Duration, progress func(Progress)) processOutcome {
	if cmd.Err != nil {
		return processOutcome{startErr: cmd.Err}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return processOutcome{startErr: err}
	}
	started := time.Now()
	var proc runningProcess
	if supervisionAvailable {
		env := cmd.Env
		if env == nil {
			env = keyenv.Environ()
		}
		proc, err = startSupervised(procsup.Request{Path: cmd.Path, Argv: cmd.Args, Env: env, Dir: cmd.Dir}, w)
	} else {
		proc, err = startUnsupervised(cmd, w)
	}
	w.Close() // the call's processes hold the only write ends now
	if err != nil {
		r.Close()
		return processOutcome{startErr: err}
	}

	copied := make(chan struct{})
	go func() {
		buf := copyBuffers.Get().(*[]byte)
		// Only Read: os.File's WriteTo would copy through a buffer of its own.
		io.CopyBuffer(sink, struct{ io.Reader }{r}, *buf)
		copyBuffers.Put(buf)
		close(copied)
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
		case <-proc.done():
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
	proc.stop()
	<-proc.done()
	out.exitCode = proc.exitCode()

	select {
	case <-copied:
	case <-time.After(pipeDrainGrace):
		r.Close()
		<-copied
	}
	r.Close()
	return out
}

// groups are the running calls, for KillAll.
var (
	groupsMu sync.Mutex
	groups   = map[runningProcess]struct{}{}
)

func register(p runningProcess) {
	groupsMu.Lock()
	groups[p] = struct{}{}
	groupsMu.Unlock()
}

func unregister(p runningProcess) {
	groupsMu.Lock()
	delete(groups, p)
	groupsMu.Unlock()
}

// KillAll ends every tool process this process is running, with SIGKILL,
// and returns how many calls it stopped. The server calls it when it is about
// to exit (SIGTERM, SIGINT, SIGHUP, end of the LSP session); the calls then
// end as killed processes (exit code 137). It does not wait: the supervisors
// finish the job even if chatls exits right after. Safe to call from a
// signal-handling goroutine and any number of times.
func KillAll() int {
	groupsMu.Lock()
	defer groupsMu.Unlock()
	for p := range groups {
		if c, ok := p.(*unsupervisedCall); ok {
			syscall.Kill(-c.pgid, syscall.SIGKILL) // listed, so the leader is unreaped
		} else {
			p.stop()
		}
	}
	return len(groups)
}

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
