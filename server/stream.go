package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// maxFrameBytes bounds one incoming message so a hostile Content-Length
// cannot make the server allocate without end.
const maxFrameBytes = 256 << 20

// resilientStream is a Content-Length framed jsonrpc2.ObjectStream that
// survives bad input. sourcegraph/jsonrpc2 closes the connection on any read
// error, so a malformed frame must never surface as one: broken JSON is
// answered with a Parse error (-32700), a frame that is not a request or
// response with Invalid Request (-32600), and reading goes on.
type resilientStream struct {
	r   *bufio.Reader
	w   io.Writer
	c   io.Closer
	wmu sync.Mutex
	// onBadInput reports dropped frames to the log.
	onBadInput func(reason string)
}

func newResilientStream(rwc io.ReadWriteCloser, onBadInput func(string)) *resilientStream {
	return &resilientStream{r: bufio.NewReaderSize(rwc, 64<<10), w: rwc, c: rwc, onBadInput: onBadInput}
}

func (s *resilientStream) WriteObject(obj interface{}) error {
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

func (s *resilientStream) Close() error { return s.c.Close() }

func (s *resilientStream) ReadObject(v interface{}) error {
	for {
		body, err := s.readFrame()
		if err != nil {
			if err == errBadHeader {
				continue
			}
			return err
		}
		if !json.Valid(body) {
			s.reject(nil, jsonrpc2.CodeParseError, "parse error: the message is not valid JSON")
			continue
		}
		if err := json.Unmarshal(body, v); err != nil {
			s.reject(idOf(body), jsonrpc2.CodeInvalidRequest, "invalid request: "+err.Error())
			continue
		}
		return nil
	}
}

var errBadHeader = fmt.Errorf("bad header")

// readFrame reads headers up to the blank line and then the body. A header
// block without a usable Content-Length is reported and skipped.
func (s *resilientStream) readFrame() ([]byte, error) {
	length := -1
	sawHeader := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawHeader {
				continue // stray blank line between frames
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err == nil && n >= 0 && n <= maxFrameBytes {
				length = n
			}
		}
	}
	if length < 0 {
		s.report("frame without a valid Content-Length header")
		s.reject(nil, jsonrpc2.CodeParseError, "parse error: missing or invalid Content-Length header")
		return nil, errBadHeader
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

func (s *resilientStream) report(reason string) {
	if s.onBadInput != nil {
		s.onBadInput(reason)
	}
}

// reject answers a frame that cannot be handled; id is null when unknown.
func (s *resilientStream) reject(id *jsonrpc2.ID, code int64, msg string) {
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
