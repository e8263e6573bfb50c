//go:build linux

package procsup

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/chatls/chatls/internal/keyenv"
)

// TickEvery is how often Run calls its tick while a command runs (the
// tools' progress reports).
const TickEvery = 200 * time.Millisecond

// pipeDrainGrace is how long output may keep flowing after the call's
// processes are gone (unsupervised: a daemon that escaped the group with
// setsid still holding the pipe).
const pipeDrainGrace = 500 * time.Millisecond

// Outcome says how a command run by Run ended.
type Outcome struct {
	ExitCode  int
	TimedOut  bool
	Cancelled bool
	StartErr  error
}

// copyBuffers are the buffers output is read with, reused across calls.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64*1024); return &b }}

// runningProcess is a started call, supervised or not.
type runningProcess interface {
	done() <-chan struct{} // closed once no process of the call is left
	stop()                 // ends them all; safe more than once, from any goroutine
	exitCode() int         // after done: 128+N for death by signal N
}

// Run runs cmd under a serving supervisor (pool.go) in a session of its
// own (no controlling terminal, so nothing can block on /dev/tty), streams
// stdout+stderr merged into out, calls tick (if not nil) every TickEvery
// with the time since the start, and ends every
// process of the call on timeout, on cancellation and after the main process
// exits (background jobs included). If chatls itself dies, the supervisor
// does it; KillAll does it on a clean shutdown. Without supervision (no
// /proc/self/exe) the tool leads its own process group, which is killed.
// The command gets cmd's path, argv, directory, environment (nil: ours) and
// ExtraFiles (at most 3), as its fds 3, 4, ….
// A cmd that failed to resolve (cmd.Err) is reported as a start error.
func Run(ctx context.Context, cmd *exec.Cmd, out io.Writer, timeout time.Duration, tick func(elapsed time.Duration)) Outcome {
	if cmd.Err != nil {
		return Outcome{StartErr: cmd.Err}
	}
	if len(cmd.ExtraFiles) > maxExtraFiles {
		return Outcome{StartErr: fmt.Errorf("%d extra files for one command; at most %d", len(cmd.ExtraFiles), maxExtraFiles)}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return Outcome{StartErr: err}
	}
	started := time.Now()
	var proc runningProcess
	if Available {
		env := cmd.Env
		if env == nil {
			env = keyenv.Environ()
		}
		proc, err = startSupervised(Request{Path: cmd.Path, Argv: cmd.Args, Env: env, Dir: cmd.Dir}, w, cmd.ExtraFiles)
	} else {
		proc, err = startUnsupervised(cmd, w)
	}
	w.Close() // the call's processes hold the only write ends now
	if err != nil {
		r.Close()
		return Outcome{StartErr: err}
	}

	copied := make(chan struct{})
	go func() {
		buf := copyBuffers.Get().(*[]byte)
		// Only Read: os.File's WriteTo would copy through a buffer of its own.
		io.CopyBuffer(out, struct{ io.Reader }{r}, *buf)
		copyBuffers.Put(buf)
		close(copied)
	}()

	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	ticker := time.NewTicker(TickEvery)
	defer ticker.Stop()

	var res Outcome
wait:
	for {
		select {
		case <-proc.done():
			break wait
		case <-timer:
			res.TimedOut = true
			break wait
		case <-ctx.Done():
			res.Cancelled = true
			break wait
		case <-ticker.C:
			if tick != nil {
				tick(time.Since(started))
			}
		}
	}
	proc.stop()
	<-proc.done()
	res.ExitCode = proc.exitCode()

	select {
	case <-copied:
	case <-time.After(pipeDrainGrace):
		r.Close()
		<-copied
	}
	r.Close()
	return res
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

// KillAll ends every command Run is running, with SIGKILL,
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
