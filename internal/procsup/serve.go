//go:build linux

package procsup

import (
	"encoding/binary"
	"syscall"
)

// serve runs the calls handed over on the control socket one at a time
// (protocol.go) and exits when the socket reaches EOF or a call is cut, with
// the last call's exit code. Between calls no process of ours is left.
func serve() int {
	w := prepare()
	status := 0
	buf := make([]byte, 16<<10)
	for calls := 0; ; calls++ {
		req, out, err := receive(w, buf, calls > 0)
		if err != nil {
			return status
		}
		c, err := start(req.Path, req.Argv, req.Env, req.Dir, []uintptr{0, uintptr(out), uintptr(out)})
		rawClose(out) // the command's processes hold the only copies now
		if err != nil {
			msg := "cannot start " + req.Path + ": " + err.Error()
			if send(reply(ReplyFailed, uint32(len(msg)), msg)) != nil {
				return status
			}
			continue
		}
		cut := send(reply(ReplyStarted, uint32(c.pid), "")) != nil || w.await(c, ControlFD)
		status = c.end()
		if cut || send(reply(ReplyExit, uint32(status), "")) != nil {
			return status
		}
	}
}

// receive reads the next request and the output pipe that came with it.
func receive(w *waker, buf []byte, trim bool) (Request, int, error) {
	if !w.idle(ControlFD, trim) {
		return Request{}, -1, errBadRequest
	}
	oob := make([]byte, syscall.CmsgSpace(4*4))
	var n, oobn int
	var err syscall.Errno
	for {
		// Readable, so it does not block.
		n, oobn, err = rawRecvmsg(ControlFD, buf, oob)
		if err != syscall.EINTR {
			break
		}
	}
	out := -1
	if oobn > 0 {
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				fds, _ := syscall.ParseUnixRights(&m)
				for _, fd := range fds {
					if out < 0 {
						out = fd
					} else {
						syscall.Close(fd)
					}
				}
			}
		}
	}
	fail := func() (Request, int, error) {
		if out >= 0 {
			syscall.Close(out)
		}
		return Request{}, -1, errBadRequest
	}
	if err != 0 || n < 4 || out < 0 {
		return fail() // EOF (n == 0) above all
	}
	size := int(binary.LittleEndian.Uint32(buf))
	if size > maxRequest || n-4 > size { // one request at a time
		return fail()
	}
	body := make([]byte, size)
	got := copy(body, buf[4:n])
	for got < size {
		m, err := syscall.Read(ControlFD, body[got:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			return fail()
		}
		got += m
	}
	req, derr := decodeRequest(body)
	if derr != nil {
		return fail()
	}
	return req, out, nil
}

// send writes a reply; an error means chatls is gone.
func send(b []byte) error {
	for len(b) > 0 {
		// A few bytes into an empty socket buffer: it does not block.
		n, err := rawSend(ControlFD, b)
		if err == syscall.EINTR {
			continue
		}
		if err != 0 {
			return err
		}
		b = b[n:]
	}
	return nil
}
