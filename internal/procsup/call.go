//go:build linux

package procsup

import (
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Linux constants not in package syscall.
const (
	prSetChildSubreaper = 36
	pPID                = 1
	wNoWait             = 0x1000000
)

// trimAfter is how long a serving supervisor waits idle before it returns
// memory to the system.
const trimAfter = time.Second

// call is one running command.
type call struct {
	pid   int
	pidfd int // -1 where the kernel has no pidfds
}

// start forks and execs the command in a process group of its own (so
// killing it spares us) with files as its fds 0, 1, 2; it dies with us in any
// case.
func start(path string, argv, env []string, dir string, files []uintptr) (*call, error) {
	c := &call{pidfd: -1}
	attr := &syscall.ProcAttr{Dir: dir, Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, PidFD: &c.pidfd}}
	pid, err := syscall.ForkExec(path, argv, attr)
	if err == syscall.EINVAL {
		// A kernel without CLONE_PIDFD may refuse the flag; nothing ran.
		attr.Sys.PidFD = nil
		pid, err = syscall.ForkExec(path, argv, attr)
	}
	if err != nil {
		return nil, err
	}
	c.pid = pid
	return c, nil
}

// end kills what is left of the call — the command's group, then every
// orphan that reached us — reaps it all and returns the command's exit code.
func (c *call) end() int {
	rawKill(-c.pid, syscall.SIGKILL) // background jobs included
	var ws syscall.WaitStatus
	for {
		if _, err := rawWait4(c.pid, &ws, 0); err != syscall.EINTR {
			break
		}
	}
	if c.pidfd >= 0 {
		rawClose(c.pidfd)
	}
	reapAll()
	return exitCode(ws)
}

// waker wakes await on a termination signal and, where there are no pidfds,
// when the command exits: a pipe, so that await is one poll.
type waker struct{ r, w int }

const (
	wakeSignal = 's'
	wakeExited = 'x'
)

func newWaker() *waker {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		// Without it only signals go unheard: they then end us as usual
		// and the command gets its parent-death signal.
		return &waker{r: -1, w: -1}
	}
	w := &waker{r: p[0], w: p[1]}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		<-sigs
		w.wake(wakeSignal)
	}()
	return w
}

func (w *waker) wake(b byte) {
	syscall.Write(w.w, []byte{b})
}

// await blocks until the command has exited (false: it is not reaped yet, so
// its group ID stays valid for end) or the call must end (true): the
// lifeline lifeFD is readable — EOF once chatls closed it or died; chatls
// sends nothing while a call runs — or a termination signal came.
func (w *waker) await(c *call, lifeFD int) (cut bool) {
	fds := []unix.PollFd{{Fd: int32(lifeFD), Events: unix.POLLIN}, {Fd: int32(w.r), Events: unix.POLLIN}}
	if c.pidfd >= 0 {
		fds = append(fds, unix.PollFd{Fd: int32(c.pidfd), Events: unix.POLLIN})
	} else {
		go func() {
			waitNoReap(c.pid)
			w.wake(wakeExited)
		}()
	}
	for {
		if _, err := unix.Poll(fds, -1); err == unix.EINTR {
			continue
		} else if err != nil {
			return true
		}
		switch {
		case len(fds) > 2 && fds[2].Revents != 0:
			return false
		case fds[1].Revents != 0:
			var b [1]byte
			syscall.Read(w.r, b[:])
			return b[0] != wakeExited
		case fds[0].Revents != 0:
			return true
		}
	}
}

// idle blocks until fd is readable (true) or a termination signal came.
// After a call, once nothing happened for trimAfter, it hands the memory
// the call used back to the system: an idle spare stays small.
func (w *waker) idle(fd int, trim bool) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(w.r), Events: unix.POLLIN}}
	for {
		timeout := -1
		if trim {
			timeout = int(trimAfter / time.Millisecond)
		}
		n, err := unix.Poll(fds, timeout)
		if err == unix.EINTR {
			continue
		} else if err != nil {
			return false
		}
		if n == 0 {
			debug.FreeOSMemory()
			trim = false
			continue
		}
		if fds[1].Revents != 0 {
			return false
		}
		if fds[0].Revents != 0 {
			return true
		}
	}
}
