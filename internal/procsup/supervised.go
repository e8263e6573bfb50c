//go:build linux

package procsup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

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
func startSupervised(req Request, out *os.File, extra []*os.File) (*supervisedCall, error) {
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
			err = s.handOver(msg, out, extra)
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
		case err == nil && kind == ReplyStarted:
			go c.await()
			return c, nil
		case err == nil && kind == ReplyFailed:
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
	if err == nil && kind == ReplyExit {
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
