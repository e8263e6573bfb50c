package tools

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chatls/chatls/internal/keyenv"
	"github.com/chatls/chatls/internal/procsup"
)

// The parent side of the serving tool supervisors (package procsup says what
// a supervisor does and why). A supervisor is started once and then runs one
// call after another: a call's start is a message on its control socket and
// a fork in the supervisor, not an exec of the big chatls binary (~5 ms).
// At most one idle supervisor is kept (the spare); a call that finds none
// starts one itself, so nothing depends on the spare being there.

// supervisionAvailable is false where /proc/self/exe cannot be executed; tools
// then run directly in their own group with the parent-death signal.
var supervisionAvailable = procsup.Available

// supervisorGrace bounds the wait for a supervisor to end its call's processes
// (one stuck in uninterruptible sleep delays it); then it is killed itself.
const supervisorGrace = 5 * time.Second

// supervisor is one serving supervisor process.
type supervisor struct {
	proc   *os.Process
	ctl    *os.File      // our end of the control socket: the supervisor's lifeline
	exited chan struct{} // closed once the supervisor is reaped; state is set then
	state  *os.ProcessState
	born   time.Time
	cutter sync.Once
	isCut  atomic.Bool
}

var pool = struct {
	mu       sync.Mutex
	idle     *supervisor
	starting bool // a Prewarm is under way
	// respawnAfter: a spare that dies while idle is replaced at once only
	// if it had lived this long, so a spare killed again and again is not
	// restarted in a loop (the next call then starts one).
	respawnAfter time.Duration
}{respawnAfter: time.Second}

// startSupervisor starts a serving supervisor in a session of its own (no
// controlling terminal for the calls: nothing can block on /dev/tty).
func startSupervisor() (*supervisor, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	syscall.SetNonblock(fds[0], true)
	ctl := os.NewFile(uintptr(fds[0]), "supervisor control")
	theirs := os.NewFile(uintptr(fds[1]), "supervisor lifeline")
	cmd := &exec.Cmd{
		Path: procsup.Self,
		Args: []string{procsup.Arg0},
		// Each call brings its own environment; one thread is all it needs.
		Env:         append(keyenv.Environ(), procsup.Env+"="+procsup.ServeMode, "GOMAXPROCS=1"),
		Dir:         "/", // holds no call's directory
		ExtraFiles:  []*os.File{theirs},
		Stderr:      os.Stderr, // a crash of the supervisor lands in chatls's log
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		ctl.Close()
		return nil, err
	}
	s := &supervisor{proc: cmd.Process, ctl: ctl, exited: make(chan struct{}), born: time.Now()}
	go func() {
		cmd.Wait()
		s.state = cmd.ProcessState
		close(s.exited)
		supervisorExited(s)
	}()
	return s, nil
}

// supervisorExited forgets a spare that died while idle, and replaces it.
func supervisorExited(s *supervisor) {
	pool.mu.Lock()
	wasIdle := pool.idle == s
	if wasIdle {
		pool.idle = nil
	}
	respawn := time.Since(s.born) >= pool.respawnAfter
	pool.mu.Unlock()
	if wasIdle {
		s.cut()
		if respawn {
			Prewarm()
		}
	}
}

// Prewarm starts the spare supervisor in the background if there is none, so
// that even the next bash call need not start one. Calls keep the spare
// themselves: this is for a server that expects a bash call soon.
func Prewarm() {
	if !supervisionAvailable {
		return
	}
	pool.mu.Lock()
	if pool.idle != nil || pool.starting {
		pool.mu.Unlock()
		return
	}
	pool.starting = true
	pool.mu.Unlock()
	go func() {
		s, err := startSupervisor()
		pool.mu.Lock()
		pool.starting = false
		pool.mu.Unlock()
		if err == nil {
			release(s)
		}
	}()
}

// take returns the spare, or a new supervisor (fresh) if there is none.
func take() (s *supervisor, fresh bool, err error) {
	pool.mu.Lock()
	s, pool.idle = pool.idle, nil
	pool.mu.Unlock()
	if s != nil {
		select {
		case <-s.exited: // died while idle; its goroutine may not have forgotten it yet
			s.cut()
		default:
			if !s.isCut.Load() {
				return s, false, nil
			}
		}
	}
	s, err = startSupervisor()
	return s, true, err
}

// release keeps s as the spare, or ends it if there is one already.
func release(s *supervisor) {
	pool.mu.Lock()
	if pool.idle == nil && !s.isCut.Load() {
		pool.idle, s = s, nil
	}
	pool.mu.Unlock()
	if s != nil {
		s.cut()
	}
}

// cut closes the control socket: the supervisor ends its call's processes,
// if any, and exits. Safe to call more than once and concurrently.
func (s *supervisor) cut() {
	s.cutter.Do(func() {
		s.isCut.Store(true)
		// shutdown, not only close: the supervisor sees EOF at once, even
		// while a read of ours still holds the socket.
		if rc, err := s.ctl.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
		}
		s.ctl.Close()
	})
}

// errSupervisorGone: the supervisor closed its end, by dying.
var errSupervisorGone = errors.New("the tool supervisor exited")

// handOver sends the request with out attached as the command's stdout and
// stderr. The request is sent whole or, on error, not at all but for a
// supervisor that is gone.
func (s *supervisor) handOver(msg []byte, out *os.File) error {
	rc, err := s.ctl.SyscallConn()
	if err != nil {
		return err
	}
	rights := syscall.UnixRights(int(out.Fd())) // Fd: the command gets a blocking pipe
	sent := 0
	werr := rc.Write(func(fd uintptr) bool {
		sent, err = syscall.SendmsgN(int(fd), msg, rights, nil, syscall.MSG_NOSIGNAL)
		return err != syscall.EAGAIN
	})
	if werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if sent < len(msg) {
		_, err = s.ctl.Write(msg[sent:]) // the rest of a request too big for one send
	}
	return err
}

// readReply reads one reply: its kind and value, and the message of ReplyFailed.
func (s *supervisor) readReply() (kind byte, v uint32, msg string, err error) {
	var h [procsup.ReplyHeader]byte
	if _, err := io.ReadFull(s.ctl, h[:]); err != nil {
		return 0, 0, "", err
	}
	kind, v = h[0], binary.LittleEndian.Uint32(h[1:])
	if kind == procsup.ReplyFailed {
		if v > 1<<20 {
			return 0, 0, "", fmt.Errorf("reply of %d bytes from the tool supervisor", v)
		}
		b := make([]byte, v)
		if _, err := io.ReadFull(s.ctl, b); err != nil {
			return 0, 0, "", err
		}
		msg = string(b)
	}
	return kind, v, msg, nil
}

// supervisedCall is a command running under a serving supervisor.
type supervisedCall struct {
	fin  chan struct{} // closed once no process of the call is left
	code int           // set before fin is closed

	mu      sync.Mutex
	sup     *supervisor
	stopped bool // stop came, maybe before there was a supervisor to cut
	ended   bool // the exit reply came: the supervisor is free again
}

// errStopped: KillAll came while the call was being handed over.
var errStopped = errors.New("stopped before it started")

// startSupervised hands the command to the spare supervisor, or to a new one,
// with out as its stdout and stderr. The call is registered for KillAll
// from the start, so a KillAll meanwhile stops it too.
func startSupervised(req procsup.Request, out *os.File) (*supervisedCall, error) {
	msg := req.Encode()
	c := &supervisedCall{fin: make(chan struct{})}
	register(c)
	for {
		s, fresh, err := take()
		if err != nil {
			unregister(c)
			return nil, err
		}
		c.mu.Lock()
		c.sup = s
		stopped := c.stopped
		c.mu.Unlock()
		if stopped {
			err = errStopped
		} else {
			err = s.handOver(msg, out)
		}
		if err != nil {
			s.cut()
			if !stopped && !fresh && (errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
				continue // a spare that died while idle: nothing was handed over
			}
			unregister(c)
			return nil, err
		}
		kind, _, text, err := s.readReply()
		switch {
		case err == nil && kind == procsup.ReplyStarted:
			go c.await()
			return c, nil
		case err == nil && kind == procsup.ReplyFailed:
			unregister(c)
			release(s)
			return nil, errors.New(text)
		case err == nil:
			err = fmt.Errorf("unexpected reply %q from the tool supervisor", kind)
		case errors.Is(err, io.EOF), errors.Is(err, os.ErrClosed):
			err = errSupervisorGone
			if c.isStopped() {
				err = errStopped
			}
		}
		unregister(c)
		s.cut()
		return nil, err
	}
}

func (c *supervisedCall) isStopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

// await waits for the exit reply, or else for the supervisor to exit: cut by
// stop or KillAll, or killed. Either way the call's processes are gone then.
func (c *supervisedCall) await() {
	kind, v, _, err := c.sup.readReply()
	if err == nil && kind == procsup.ReplyExit {
		c.code = int(v)
		c.mu.Lock()
		c.ended = true
		c.mu.Unlock()
		unregister(c)
		release(c.sup)
		close(c.fin)
		return
	}
	c.sup.cut()
	select {
	case <-c.sup.exited:
	case <-time.After(supervisorGrace):
		c.sup.proc.Kill() // by pidfd where there is one: no pid reuse
		<-c.sup.exited
	}
	c.code = exitCodeOf(c.sup.state, nil)
	unregister(c)
	close(c.fin)
}

func (c *supervisedCall) done() <-chan struct{} { return c.fin }

// stop ends the call, unless it ended already: the supervisor may be
// another call's by now.
func (c *supervisedCall) stop() {
	c.mu.Lock()
	c.stopped = true
	if !c.ended && c.sup != nil {
		c.sup.cut()
	}
	c.mu.Unlock()
}
func (c *supervisedCall) exitCode() int { return c.code }
