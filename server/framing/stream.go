// Package framing reads and writes LSP's Content-Length framed JSON-RPC
// messages for sourcegraph/jsonrpc2, surviving whatever a client sends.
package framing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/chatls/chatls/internal/jsonfast"
)

// maxFrameBytes bounds one incoming message so a hostile Content-Length
// cannot make the server allocate without end.
const maxFrameBytes = 256 << 20

// Stream is a Content-Length framed jsonrpc2.ObjectStream that
// survives bad input. sourcegraph/jsonrpc2 closes the connection on any read
// error, so a malformed frame must never surface as one: broken JSON is
// answered with a Parse error (-32700), a frame that is not a request or
// response with Invalid Request (-32600), and reading goes on.
//
// After a broken frame the stream resynchronizes on the next
// `Content-Length:` header wherever it appears: a wrong length leaves the
// rest of a body, without a line break, in front of the next header, or
// swallows the beginning of the next frame.
type Stream struct {
	in  *frameReader
	w   io.Writer
	c   io.Closer
	wmu sync.Mutex
	// onBadInput reports dropped frames to the log; onEnd why reading ended.
	onBadInput func(reason string)
	onEnd      func(reason string)
	// partial counts the bytes of the frame being read (0 between frames).
	partial int
	// held are the params of large frames, until the handler takes them.
	held stash
}

// NewStream frames messages over rwc; onBadInput (may be nil) hears about
// every frame dropped and why, onEnd (may be nil) why the input ended —
// cleanly between messages, or in the middle of one.
func NewStream(rwc io.ReadWriteCloser, onBadInput, onEnd func(string)) *Stream {
	s := newStream(rwc, onBadInput)
	s.onEnd = onEnd
	return s
}

func newStream(rwc io.ReadWriteCloser, onBadInput func(string)) *Stream {
	return &Stream{in: newFrameReader(rwc), w: rwc, c: rwc, onBadInput: onBadInput}
}

func (s *Stream) WriteObject(obj interface{}) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = s.w.Write(data)
	return err
}

func (s *Stream) Close() error { return s.c.Close() }

func (s *Stream) ReadObject(v interface{}) error {
	for {
		body, err := s.readFrame()
		if err != nil {
			if err == errBadFrame {
				continue
			}
			s.ended(err)
			return err
		}
		light, stashed := s.lighten(body)
		if err := json.Unmarshal(light, v); err != nil {
			s.held.take(stashed) // no handler will ask for them
			s.reject(idOf(body), jsonrpc2.CodeInvalidRequest, "invalid request: "+err.Error())
			continue
		}
		return nil
	}
}

// ended says why the input ended: cleanly between messages, or in the
// middle of one (then what arrived of it is lost, and the log says so).
func (s *Stream) ended(err error) {
	if s.onEnd == nil {
		return
	}
	switch {
	case s.partial > 0 && (err == io.EOF || err == io.ErrUnexpectedEOF):
		s.onEnd(fmt.Sprintf("the client's input ended in the middle of a message (%d bytes of it had arrived); the message is lost", s.partial))
	case err == io.EOF:
		s.onEnd("the client closed its input")
	default:
		s.onEnd("reading from the client failed: " + err.Error())
	}
}

// errBadFrame is a frame that was answered with an error and dropped.
var errBadFrame = fmt.Errorf("bad frame")

// readFrame reads one header block and its body. It returns valid JSON or
// errBadFrame (already answered); any other error ends the stream.
func (s *Stream) readFrame() ([]byte, error) {
	s.partial = 0
	length, err := s.readHeaders()
	if err != nil {
		return nil, err
	}
	if length < 0 {
		s.reject(nil, jsonrpc2.CodeParseError, "parse error: missing or invalid Content-Length header")
		return nil, errBadFrame
	}
	body, resync, err := s.readBody(length)
	if err != nil {
		return nil, err
	}
	if resync < 0 && jsonfast.Valid(bytesView(body)) {
		return body, nil
	}
	if resync < 0 {
		resync = resyncPoint(body)
	}
	// Whatever follows the point where the next frame may begin is read again.
	s.in.unread(body[resync:])
	s.reject(nil, jsonrpc2.CodeParseError, "parse error: the message is not valid JSON (or its Content-Length is wrong)")
	return nil, errBadFrame
}

// readHeaders reads header lines up to the blank line ending the block and
// returns the Content-Length, -1 when missing or invalid. The last
// `Content-Length:` in the block wins, wherever it stands in its line: bytes
// before it are the tail of a broken frame (reported, not answered twice).
func (s *Stream) readHeaders() (int, error) {
	length := -1
	sawHeader := false
	for {
		line, err := s.in.readLine()
		if err != nil {
			s.partial += s.in.buffered()
			return -1, err
		}
		s.partial += len(line)
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if !sawHeader {
				s.partial = 0
				continue // stray blank line between frames
			}
			return length, nil
		}
		sawHeader = true
		if at := lastHeaderName(line); at >= 0 {
			if at > 0 {
				s.report(fmt.Sprintf("skipped %d bytes of garbage before a Content-Length header", at))
			}
			length = headerValue(line[at+len(headerName):])
		}
	}
}

// readBody reads length bytes. It stops early, returning resync >= 0, when
// what it read holds a complete `Content-Length: N` line: raw line breaks
// cannot occur inside valid JSON, so the declared length was too long and a
// new frame starts there. Memory grows with the bytes that arrive, never
// with the declared length alone.
func (s *Stream) readBody(length int) (body []byte, resync int, err error) {
	body = make([]byte, 0, min(length, 64<<10))
	scanned := 0
	for len(body) < length {
		chunk, err := s.in.next(length - len(body))
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			s.partial += len(body)
			return nil, -1, err
		}
		if len(body)+len(chunk) > cap(body) {
			// Grow fourfold, but never past the declared length: memory
			// grows with what arrived (at most four times it), and a
			// 10 MB body allocates 16 MB in all (doubling: 27 MB, which
			// made an open collect garbage once more).
			grown := make([]byte, len(body), min(length, max(4*cap(body), len(body)+len(chunk))))
			copy(grown, body)
			body = grown
		}
		body = append(body, chunk...)
		// Rescan a little before the new bytes: a header may straddle chunks.
		from := max(0, scanned-len(headerName)-2*headerSlack)
		if at := completeHeaderIndex(body, from); at >= 0 {
			return body, at, nil
		}
		scanned = len(body)
	}
	return body, -1, nil
}

func (s *Stream) report(reason string) {
	if s.onBadInput != nil {
		s.onBadInput(reason)
	}
}

// reject answers a frame that cannot be handled; id is null when unknown.
func (s *Stream) reject(id *jsonrpc2.ID, code int64, msg string) {
	s.report(msg)
	resp := map[string]any{"jsonrpc": "2.0", "id": nil, "error": &jsonrpc2.Error{Code: code, Message: msg}}
	if id != nil {
		resp["id"] = id
	}
	_ = s.WriteObject(resp)
}

// idOf extracts a usable request id from a frame that failed to decode.
func idOf(body []byte) *jsonrpc2.ID {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &probe) != nil || len(bytes.TrimSpace(probe.ID)) == 0 {
		return nil
	}
	var id jsonrpc2.ID
	if json.Unmarshal(probe.ID, &id) != nil {
		return nil
	}
	return &id
}

// headerName is matched case-insensitively, anywhere in a line.
const headerName = "content-length:"

// headerSlack bounds the blanks and digits after headerName that the
// scanners accept, so a header split across reads is still found.
const headerSlack = 32

// maxHeaderLine bounds a header line; longer garbage is dropped except its
// tail, which may hold the start of the next header.
const maxHeaderLine = 64 << 10

// tailKind says what follows a `Content-Length:`.
type tailKind int

const (
	tailInvalid    tailKind = iota
	tailComplete            // blanks, digits, then a line break
	tailIncomplete          // blanks and digits up to the end of the bytes
)

// headerTail classifies the bytes after a `Content-Length:`.
func headerTail(b []byte) tailKind {
	i := 0
	for i < len(b) && i < headerSlack && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	digits := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && digits < headerSlack {
		i++
		digits++
	}
	switch {
	case i == len(b):
		return tailIncomplete
	case digits > 0 && (b[i] == '\r' || b[i] == '\n'):
		return tailComplete
	}
	return tailInvalid
}

// headerAt reports whether b holds headerName ending at the colon at index colon.
func headerAt(b []byte, colon int) (start int, ok bool) {
	start = colon - (len(headerName) - 1)
	return start, start >= 0 && bytes.EqualFold(b[start:colon+1], []byte(headerName))
}

// completeHeaderIndex is the start of the first `Content-Length: N` line
// beginning at or after from, or -1.
func completeHeaderIndex(b []byte, from int) int {
	for i := from; i < len(b); {
		j := bytes.IndexByte(b[i:], ':')
		if j < 0 {
			return -1
		}
		colon := i + j
		if start, ok := headerAt(b, colon); ok && start >= from && headerTail(b[colon+1:]) == tailComplete {
			return start
		}
		i = colon + 1
	}
	return -1
}

// resyncPoint is where the next frame may begin inside a broken body: the
// first `Content-Length:` that is complete or cut off by the body's end, or
// a tail of the body that begins one; len(body) when there is none.
func resyncPoint(body []byte) int {
	for i := 0; i < len(body); {
		j := bytes.IndexByte(body[i:], ':')
		if j < 0 {
			break
		}
		colon := i + j
		if start, ok := headerAt(body, colon); ok && headerTail(body[colon+1:]) != tailInvalid {
			return start
		}
		i = colon + 1
	}
	for n := min(len(headerName)-1, len(body)); n > 0; n-- {
		if bytes.EqualFold(body[len(body)-n:], []byte(headerName[:n])) {
			return len(body) - n
		}
	}
	return len(body)
}

// lastHeaderName is the index of the last headerName in line, or -1.
func lastHeaderName(line []byte) int {
	for end := len(line); end > 0; {
		colon := bytes.LastIndexByte(line[:end], ':')
		if colon < 0 {
			return -1
		}
		if start, ok := headerAt(line, colon); ok {
			return start
		}
		end = colon
	}
	return -1
}

// headerValue parses the length after the colon: blanks, then digits only.
func headerValue(b []byte) int {
	b = bytes.Trim(b, " \t")
	if len(b) == 0 || len(b) > 10 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	if n > maxFrameBytes {
		return -1
	}
	return n
}

// frameReader is a buffered reader that can put bytes back: resyncing
// reads part of a broken body again as the start of the next frame.
type frameReader struct {
	src io.Reader
	buf []byte // buf[off:] is unread
	off int
}

func newFrameReader(src io.Reader) *frameReader {
	return &frameReader{src: src, buf: make([]byte, 0, 64<<10)}
}

// fill reads more bytes from the source after the unread ones.
func (r *frameReader) fill() error {
	unread := len(r.buf) - r.off
	if r.off > 0 && (unread == 0 || r.off >= cap(r.buf)/2) {
		copy(r.buf, r.buf[r.off:])
		r.buf, r.off = r.buf[:unread], 0
	}
	if cap(r.buf)-len(r.buf) < 4<<10 {
		grown := make([]byte, len(r.buf), 2*cap(r.buf)+(4<<10))
		copy(grown, r.buf)
		r.buf = grown
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+n]
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

// readLine returns the next line including its '\n'. A line longer than
// maxHeaderLine keeps only its tail: it is garbage, but its end may start a
// header.
func (r *frameReader) readLine() ([]byte, error) {
	searched := 0
	for {
		if i := bytes.IndexByte(r.buf[r.off+searched:], '\n'); i >= 0 {
			end := r.off + searched + i + 1
			line := append([]byte(nil), r.buf[r.off:end]...)
			r.off = end
			return line, nil
		}
		searched = len(r.buf) - r.off
		if searched > maxHeaderLine {
			keep := len(headerName) + headerSlack
			r.off = len(r.buf) - keep
			searched = keep
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// buffered is how many bytes were read and not consumed yet.
func (r *frameReader) buffered() int { return len(r.buf) - r.off }

// next returns up to n unread bytes (at least one), valid until the next call.
func (r *frameReader) next(n int) ([]byte, error) {
	if r.off == len(r.buf) {
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
	end := min(len(r.buf), r.off+n)
	chunk := r.buf[r.off:end]
	r.off = end
	return chunk, nil
}

// unread puts p back in front of the unread bytes.
func (r *frameReader) unread(p []byte) {
	if len(p) == 0 {
		return
	}
	rest := r.buf[r.off:]
	joined := make([]byte, len(p)+len(rest), max(len(p)+len(rest), 64<<10))
	copy(joined, p)
	copy(joined[len(p):], rest)
	r.buf, r.off = joined, 0
}
