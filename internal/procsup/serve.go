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
		req, fds, err := receive(w, buf, calls > 0)
		if err != nil {
			return status
		}
		// fds[0] is the output; any others become the command's fds 3, 4, ….
		files := []uintptr{0, uintptr(fds[0]), uintptr(fds[0])}
		for _, fd := range fds[1:] {
			files = append(files, uintptr(fd))
		}
		c, err := start(req.Path, req.Argv, req.Env, req.Dir, files)
		for _, fd := range fds {
			rawClose(fd) // the command's processes hold the only copies now
		}
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

// receive reads the next request and the files that came with it: the
// output pipe first, then the command's extra files (at most maxExtraFiles).
func receive(w *waker, buf []byte, trim bool) (Request, []int, error) {
	if !w.idle(ControlFD, trim) {
		return Request{}, nil, errBadRequest
	}
	oob := make([]byte, syscall.CmsgSpace(4*(1+maxExtraFiles)))
	var n, oobn int
	var err syscall.Errno
	for {
		// Readable, so it does not block.
		n, oobn, err = rawRecvmsg(ControlFD, buf, oob)
		if err != syscall.EINTR {
			break
		}
	}
	var files []int
	if oobn > 0 {
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				fds, _ := syscall.ParseUnixRights(&m)
				files = append(files, fds...)
			}
		}
	}
	fail := func() (Request, []int, error) {
		for _, fd := range files {
			syscall.Close(fd)
		}
		return Request{}, nil, errBadRequest
	}
	if err != 0 || n < 4 || len(files) == 0 || len(files) > 1+maxExtraFiles {
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
	return req, files, nil
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
