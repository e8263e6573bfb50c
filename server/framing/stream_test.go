package framing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// Sentinels end every stream the tests feed: a shutdown request and exit.
var (
	sentinelShutdown = `{"jsonrpc":"2.0","id":"sentinel","method":"shutdown"}`
	sentinelExit     = `{"jsonrpc":"2.0","method":"exit"}`
)

type message struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

type rw struct {
	io.Reader
	out *bytes.Buffer
}

func (r rw) Write(p []byte) (int, error) { return r.out.Write(p) }
func (rw) Close() error                  { return nil }

// decodeAll reads every object from input until the stream ends, returning
// the decoded messages and the error replies the stream wrote.
func decodeAll(t testing.TB, input []byte) (got []message, replies []message) {
	out := &bytes.Buffer{}
	s := newStream(rw{Reader: bytes.NewReader(input), out: out}, nil)
	for i := 0; ; i++ {
		if i > len(input)+10 {
			t.Fatalf("no progress: more objects than input bytes")
		}
		var m message
		if err := s.ReadObject(&m); err != nil {
			break
		}
		got = append(got, m)
	}
	rest := out.Bytes()
	for len(rest) > 0 {
		var n int
		if _, err := fmt.Sscanf(string(rest), "Content-Length: %d\r\n\r\n", &n); err != nil {
			t.Fatalf("the stream wrote a bad frame: %q", rest)
		}
		head := bytes.Index(rest, []byte("\r\n\r\n")) + 4
		var m message
		if err := json.Unmarshal(rest[head:head+n], &m); err != nil {
			t.Fatalf("the stream wrote an undecodable reply: %v", err)
		}
		replies = append(replies, m)
		rest = rest[head+n:]
	}
	return got, replies
}

// endsWithSentinels is the guarantee after any garbage: the shutdown and
// exit frames that follow it are decoded, in order, as the last two messages.
func endsWithSentinels(got []message) bool {
	n := len(got)
	return n >= 2 && got[n-2].Method == "shutdown" && string(got[n-2].ID) == `"sentinel"` && got[n-1].Method == "exit"
}

func TestStreamResynchronizesAfterBrokenFrames(t *testing.T) {
	valid := `{"jsonrpc":"2.0","id":2,"method":"textDocument/hover"}`
	cases := map[string]string{
		"non-numeric length":  "Content-Length: abc\r\n\r\n" + valid,
		"length too short":    fmt.Sprintf("Content-Length: %d\r\n\r\n", len(valid)-7) + valid,
		"length too long":     fmt.Sprintf("Content-Length: %d\r\n\r\n", len(valid)+500) + valid,
		"length far too long": fmt.Sprintf("Content-Length: %d\r\n\r\n", maxFrameBytes) + valid,
		"negative length":     "Content-Length: -5\r\n\r\n" + valid,
		"no header at all":    "X-Nonsense: 1\r\n\r\n",
		"broken JSON":         frame(`{this is not json`),
		"garbage, no breaks":  strings.Repeat("\x00\xffgarbage", 10000),
		"cut header":          "Content-Len",
		"cut length":          "Content-Length: 12",
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			input := bad + frame(sentinelShutdown) + frame(sentinelExit)
			got, replies := decodeAll(t, []byte(input))
			if !endsWithSentinels(got) {
				t.Fatalf("shutdown and exit after the broken frame were not decoded: %+v", got)
			}
			if len(got) != 2 {
				t.Errorf("decoded %d messages, want only the two sentinels: %+v", len(got), got)
			}
			if strings.HasPrefix(name, "cut") || strings.HasPrefix(name, "garbage") {
				// Bytes before a header on its line are dropped with a log
				// line only: usually the rest of a frame already answered.
				if len(replies) != 0 {
					t.Errorf("want no reply, got %+v", replies)
				}
				return
			}
			if len(replies) != 1 || replies[0].Error == nil || replies[0].Error.Code != -32700 {
				t.Errorf("want exactly one -32700 reply for the broken frame, got %+v", replies)
			}
		})
	}
}

func TestStreamKeepsValidFramesIntact(t *testing.T) {
	// A body may contain the header's text, escaped, and colons anywhere.
	tricky := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"text":"Content-Length: 12\r\n\r\n{}","a:b":"content-length:"}}`
	input := frame(tricky) + frame(tricky) + frame(sentinelShutdown) + frame(sentinelExit)
	got, replies := decodeAll(t, []byte(input))
	if len(got) != 4 || got[0].Method != "x" || got[1].Method != "x" || !endsWithSentinels(got) {
		t.Fatalf("valid frames were not decoded as sent: %+v", got)
	}
	if len(replies) != 0 {
		t.Errorf("valid frames got error replies: %+v", replies)
	}
}

// FuzzStreamResync: whatever bytes come before valid frames, the stream
// never panics, always makes progress, and decodes the shutdown and exit
// that follow as its last two messages. Garbage may hold frames of its own,
// so only the suffix is guaranteed.
func FuzzStreamResync(f *testing.F) {
	for _, seed := range []string{
		"", "Content-Length: abc\r\n\r\n{}", "Content-Length: 5\r\n\r\n{\"a\":1}",
		"Content-Length: 900\r\n\r\n{", "Content-Length: 2\r\n\r\nabc", "content-length:",
		"Content-Length: 1\r\nContent-Length", "\r\n\r\n\r\n", frame(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`),
		"Content-Length: 20\r\n\r\n\"Content-Length: 3\r\n", "X: y\r\n",
	} {
		f.Add([]byte(seed))
	}
	tail := []byte(frame(sentinelShutdown) + frame(sentinelExit))
	f.Fuzz(func(t *testing.T, garbage []byte) {
		input := append(append([]byte(nil), garbage...), tail...)
		got, _ := decodeAll(t, input)
		if !endsWithSentinels(got) {
			t.Fatalf("after %q the sentinels were not the last messages: %+v", garbage, got)
		}
	})
}

// A frame that declares far more than arrives costs memory in proportion to
// what arrived (at most four times it), not to what it declared: a client
// cannot make the server allocate 200 MB with one header line.
func TestDeclaredLengthDoesNotAllocateAhead(t *testing.T) {
	arrived := strings.Repeat("x", 300<<10)
	input := []byte("Content-Length: 209715200\r\n\r\n" + arrived) // 200 MB, under maxFrameBytes
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := newStream(rw{Reader: bytes.NewReader(input), out: &bytes.Buffer{}}, nil)
	var m message
	if err := s.ReadObject(&m); err == nil {
		t.Fatal("a truncated frame decoded")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8*uint64(len(arrived)) {
		t.Fatalf("%d bytes arrived of a declared 200 MB; the stream allocated %d", len(arrived), grew)
	}
}
