package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// Fault is why an agent stopped being usable: it exited, broke the
// protocol, or fell silent. Once an Agent has a fault every call returns
// it; the session starts a new agent on the next send (SPEC §12).
type Fault struct {
	Reason string // "the agent exited (status 1): boom"
}

func (f *Fault) Error() string { return f.Reason }

// IsFault reports whether err is an agent's fault (as opposed to, say, a
// cancelled context or a bad argument).
func IsFault(err error) bool {
	var f *Fault
	return errors.As(err, &f)
}

// stderrRing keeps the last bytes an agent wrote on stderr, for error
// messages: agents explain their crashes there.
type stderrRing struct {
	mu   sync.Mutex
	buf  []byte
	size int
}

func newStderrRing(size int) *stderrRing { return &stderrRing{size: size} }

func (r *stderrRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.size; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(p), nil
}

// lastLines is the last n non-blank lines, oldest first.
func (r *stderrRing) lastLines(n int) []string {
	r.mu.Lock()
	text := string(r.buf)
	r.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// withStderr appends the last stderr line to a reason: "…: <line>".
func (r *stderrRing) withStderr(reason string) string {
	if l := r.lastLines(1); len(l) > 0 {
		return reason + ": " + clip(l[0], 300)
	}
	return reason
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// wire sits between the agent's stdout and the SDK's reader. The SDK logs
// and skips a line that is not JSON; chatls must instead end the answer
// saying the agent broke the protocol, so wire checks each line first. It
// also notes when the agent last said anything (for the silence limit) and
// how many notifications came before each request the agent makes, so a
// request is handled only after the updates before it (SDK requests run at
// once, notifications in a queue: a permission request would otherwise
// overtake the tool_call it is about).
type wire struct {
	src     *bytes.Buffer // unread rest of the current chunk
	read    func([]byte) (int, error)
	onFault func(reason string)

	mu       sync.Mutex
	last     time.Time
	notes    uint64              // notifications passed to the SDK
	barriers map[string][]uint64 // method+params → notes before it, FIFO
}

func newWire(read func([]byte) (int, error), onFault func(string)) *wire {
	return &wire{src: new(bytes.Buffer), read: read, onFault: onFault, last: time.Now(), barriers: map[string][]uint64{}}
}

// envelope is what wire reads of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// Read hands the SDK one whole line at a time, after checking it.
func (w *wire) Read(p []byte) (int, error) {
	for {
		if i := bytes.IndexByte(w.src.Bytes(), '\n'); i >= 0 {
			line := w.src.Next(i + 1)
			if err := w.check(line); err != nil {
				return 0, err
			}
			// The SDK's scanner takes lines up to 10 MiB; p is its buffer's
			// free part, so copy what fits and keep the rest for the next Read.
			n := copy(p, line)
			if n < len(line) {
				rest := append([]byte(nil), line[n:]...)
				w.src = bytes.NewBuffer(append(rest, w.src.Bytes()...))
			}
			return n, nil
		}
		chunk := make([]byte, 64*1024)
		n, err := w.read(chunk)
		w.src.Write(chunk[:n])
		if n > 0 {
			w.mu.Lock()
			w.last = time.Now()
			w.mu.Unlock()
		}
		if err != nil {
			if rest := bytes.TrimSpace(w.src.Bytes()); len(rest) > 0 {
				if cerr := w.check(rest); cerr != nil {
					return 0, cerr
				}
				n := copy(p, w.src.Bytes())
				w.src.Next(n)
				return n, nil
			}
			return 0, err
		}
	}
}

// errBrokeProtocol ends the SDK's read loop; the fault itself is reported
// through onFault.
var errBrokeProtocol = errors.New("the agent broke the protocol")

// check accepts a JSON-RPC message (or a blank line) and records its place
// among notifications; anything else is a protocol fault.
func (w *wire) check(line []byte) error {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil
	}
	var env envelope
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil {
		w.onFault(fmt.Sprintf("the agent broke the protocol: it wrote %q on stdout, which is not a JSON-RPC message (logs belong on stderr)", clip(string(trimmed), 120)))
		return errBrokeProtocol
	}
	if env.Method == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(env.ID) == 0 || string(env.ID) == "null" {
		if env.Method == sdk.ClientMethodSessionUpdate { // the only notifications requests wait for
			w.notes++
		}
		return nil
	}
	key := env.Method + "\x00" + string(env.Params)
	w.barriers[key] = append(w.barriers[key], w.notes)
	return nil
}

// barrier is how many notifications came before the request with this
// method and params (the SDK hands handlers the same bytes wire saw).
func (w *wire) barrier(method string, params json.RawMessage) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := method + "\x00" + string(params)
	q := w.barriers[key]
	if len(q) == 0 {
		return 0
	}
	n := q[0]
	if len(q) == 1 {
		delete(w.barriers, key)
	} else {
		w.barriers[key] = q[1:]
	}
	return n
}

// lastHeard is when the agent last wrote to stdout.
func (w *wire) lastHeard() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}
