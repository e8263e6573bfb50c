package procsup

import (
	"encoding/binary"
	"errors"
)

// The control protocol of a serving supervisor (ServeMode), on a Unix stream
// socket. chatls sends one Request at a time, with the call's output pipe
// attached (SCM_RIGHTS, in the same sendmsg as the request's first byte);
// any files the command gets as its fds 3, 4, … follow the output pipe;
// the supervisor answers ReplyStarted (or ReplyFailed), then ReplyExit once
// the command and every process it started are gone. While a call runs
// chatls sends nothing: anything readable on the socket then — EOF above all,
// when chatls closed it or died — ends the call and the supervisor.

// Request is one command handed over: everything the command gets from
// chatls is taken from the request, nothing from the supervisor's start.
type Request struct {
	Path string   // resolved executable
	Argv []string // argv[0] included
	Env  []string
	Dir  string
}

// Reply kinds; each reply is the kind byte and a little-endian uint32
// (ReplyFailed: the length of the message that follows).
const (
	ReplyStarted = 'S' // value: the command's pid
	ReplyFailed  = 'F' // value: message length; the command did not start
	ReplyExit    = 'X' // value: exit code, 128+N for death by signal N
	ReplyHeader  = 5
)

// maxExtraFiles bounds the files a request may attach besides the output
// (the command's fds 3 and up: bubblewrap's status pipe).
const maxExtraFiles = 3

// maxRequest bounds a request (the kernel's own bound on argv+env is lower).
const maxRequest = 64 << 20

// Encode returns the request as sent: a uint32 length, then the strings, each
// as a uint32 length and its bytes, path, dir, argc, argv…, envc, env….
func (r *Request) Encode() []byte {
	n := 4 + 4 + len(r.Path) + 4 + len(r.Dir) + 8
	for _, s := range r.Argv {
		n += 4 + len(s)
	}
	for _, s := range r.Env {
		n += 4 + len(s)
	}
	b := make([]byte, 4, n)
	b = appendString(b, r.Path)
	b = appendString(b, r.Dir)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(r.Argv)))
	for _, s := range r.Argv {
		b = appendString(b, s)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(r.Env)))
	for _, s := range r.Env {
		b = appendString(b, s)
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

var errBadRequest = errors.New("malformed request")

// decodeRequest parses a request body (after its length).
func decodeRequest(b []byte) (Request, error) {
	var r Request
	d := decoder{b: b}
	r.Path = d.string()
	r.Dir = d.string()
	r.Argv = d.strings()
	r.Env = d.strings()
	if d.bad || len(d.b) != 0 || len(r.Argv) == 0 {
		return Request{}, errBadRequest
	}
	return r, nil
}

type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uint32() int {
	if len(d.b) < 4 {
		d.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return int(v)
}

func (d *decoder) string() string {
	n := d.uint32()
	if n > len(d.b) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) strings() []string {
	n := d.uint32()
	if n > len(d.b)/4 { // each string takes at least its length
		d.bad = true
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.string()
	}
	return out
}

// reply encodes one reply.
func reply(kind byte, v uint32, msg string) []byte {
	b := append(make([]byte, 0, ReplyHeader+len(msg)), kind)
	b = binary.LittleEndian.AppendUint32(b, v)
	return append(b, msg...)
}
