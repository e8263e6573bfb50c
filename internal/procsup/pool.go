//go:build linux

package procsup

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
)

// The parent side of the serving supervisors (the package comment says what
// a supervisor does and why). A supervisor is started once and then runs one
// call after another: a call's start is a message on its control socket and
// a fork in the supervisor, not an exec of the big chatls binary (~5 ms).
// At most one idle supervisor is kept (the spare); a call that finds none
// starts one itself, so nothing depends on the spare being there.

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
		Path: Self,
		Args: []string{Arg0},
		// Each call brings its own environment; one thread is all it needs.
		Env:         append(keyenv.Environ(), Env+"="+ServeMode, "GOMAXPROCS=1"),
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
	if !Available {
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
// stderr, and extra as its fds 3, 4, …. The request is sent whole or, on
// error, not at all but for a supervisor that is gone.
func (s *supervisor) handOver(msg []byte, out *os.File, extra []*os.File) error {
	rc, err := s.ctl.SyscallConn()
	if err != nil {
		return err
	}
	fds := []int{int(out.Fd())} // Fd: the command gets a blocking pipe
	for _, f := range extra {
		fds = append(fds, int(f.Fd()))
	}
	rights := syscall.UnixRights(fds...)
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
	var h [ReplyHeader]byte
	if _, err := io.ReadFull(s.ctl, h[:]); err != nil {
		return 0, 0, "", err
	}
	kind, v = h[0], binary.LittleEndian.Uint32(h[1:])
	if kind == ReplyFailed {
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
