package framing

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// withStashMin makes frames of at least n bytes stashed.
func withStashMin(t *testing.T, n int) {
	saved := stashMin
	stashMin = n
	t.Cleanup(func() { stashMin = saved })
}

// readRequest reads one frame into a jsonrpc2.Request, as the connection
// does, and swaps stashed params back in as the server's handler does.
func readRequest(t *testing.T, s *Stream) *jsonrpc2.Request {
	t.Helper()
	var req jsonrpc2.Request
	if err := s.ReadObject(&req); err != nil {
		t.Fatal(err)
	}
	req.Params = s.Unstash(req.Params)
	return &req
}

// viaJSONRPC2 is what jsonrpc2 makes of body without the stash.
func viaJSONRPC2(t *testing.T, body string) *jsonrpc2.Request {
	t.Helper()
	var req jsonrpc2.Request
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	return &req
}

func decodedParams(t *testing.T, p *json.RawMessage) any {
	t.Helper()
	if p == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(*p, &v); err != nil {
		t.Fatalf("params %q: %v", *p, err)
	}
	return v
}

func TestLargeFramesArriveAsJSONRPC2WouldDecodeThem(t *testing.T) {
	withStashMin(t, 64)
	text := strings.Repeat("line with \"quotes\", \\backslashes\\, tabs\t and é ✓\r\n", 20)
	textJSON, _ := json.Marshal(text)
	bodies := []string{
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.chat","version":1,"text":` + string(textJSON) + `}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"x","arguments":[` + string(textJSON) + `]}}`,
		`{"jsonrpc":"2.0","id":"s-1","method":"m","params":[1,2,` + string(textJSON) + `],"meta":{"k":1}}`,
		`{"jsonrpc":"2.0","id":null,"method":"m","params":{"t":` + string(textJSON) + `}}`,
		` {"method":"m", "params" : {"t":` + string(textJSON) + `} } `,
	}
	var input bytes.Buffer
	for _, b := range bodies {
		input.WriteString(frame(b))
	}
	s := newStream(rw{Reader: &input, out: &bytes.Buffer{}}, nil)
	for _, body := range bodies {
		got, want := readRequest(t, s), viaJSONRPC2(t, body)
		if got.Method != want.Method || got.ID != want.ID || got.Notif != want.Notif {
			t.Errorf("%.60s…: got method %q id %v notif %v, want %q %v %v", body, got.Method, got.ID, got.Notif, want.Method, want.ID, want.Notif)
		}
		if !reflect.DeepEqual(decodedParams(t, got.Params), decodedParams(t, want.Params)) {
			t.Errorf("%.60s…: params differ", body)
		}
		if !reflect.DeepEqual(decodedParams(t, got.Meta), decodedParams(t, want.Meta)) {
			t.Errorf("%.60s…: meta %s, want %s", body, *got.Meta, *want.Meta)
		}
	}
	if len(s.held.held) != 0 {
		t.Errorf("%d params left in the stash", len(s.held.held))
	}
}

func TestStashLeavesNothingBehindAndIgnoresLookalikes(t *testing.T) {
	withStashMin(t, 64)
	pad := strings.Repeat("x", 100)
	bad := `{"jsonrpc":"2.0","id":{"an":"object"},"method":"m","params":{"t":"` + pad + `"}}` // an ID jsonrpc2 refuses
	fake := `{"jsonrpc":"2.0","id":2,"method":"m","params":{"chatls.framing.stashed":1}}`
	out := &bytes.Buffer{}
	s := newStream(rw{Reader: strings.NewReader(frame(bad) + frame(fake)), out: out}, nil)
	got := readRequest(t, s) // the bad frame is answered and skipped
	if got.Method != "m" || got.ID != (jsonrpc2.ID{Num: 2}) {
		t.Fatalf("read %q %v, want the second frame", got.Method, got.ID)
	}
	if string(*got.Params) != `{"chatls.framing.stashed":1}` {
		t.Errorf("a client's lookalike params became %s", *got.Params)
	}
	if len(s.held.held) != 0 {
		t.Errorf("%d params left in the stash after a rejected frame", len(s.held.held))
	}
	if !strings.Contains(out.String(), `"code":-32600`) {
		t.Errorf("the bad frame got no Invalid Request answer: %q", out.String())
	}
}

// BenchmarkReadLargeDidOpen: a 10 MB didOpen frame read and its params
// decoded into the didOpen struct, as the server does.
func BenchmarkReadLargeDidOpen(b *testing.B) {
	text := strings.Repeat("Some prose with \"quotes\" and a path C:\\\\dir.\n", 10<<20/44)
	textJSON, _ := json.Marshal(text)
	body := frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///big.chat","languageId":"chat","version":1,"text":` + string(textJSON) + `}}}`)
	// jsonrpc2: the frame as jsonrpc2 reads it; stashed: params set aside,
	// decoded by encoding/json; lifted: set aside and the text decoded by
	// the fast reader (framing.Lift), as the server does now.
	for _, way := range []string{"jsonrpc2", "stashed", "lifted"} {
		b.Run(way, func(b *testing.B) {
			saved := stashMin
			defer func() { stashMin = saved }()
			if way == "jsonrpc2" {
				stashMin = 1 << 62
			}
			b.ReportAllocs()
			for b.Loop() {
				s := newStream(rw{Reader: strings.NewReader(body), out: &bytes.Buffer{}}, nil)
				var req jsonrpc2.Request
				if err := s.ReadObject(&req); err != nil {
					b.Fatal(err)
				}
				var p struct {
					TextDocument struct{ Text string } `json:"textDocument"`
				}
				params := *s.Unstash(req.Params)
				if way != "lifted" {
					if err := json.Unmarshal(params, &p); err != nil {
						b.Fatal(err)
					}
				} else if small, lifted, ok := Lift(params); !ok || json.Unmarshal(small, &p) != nil {
					b.Fatal("not lifted")
				} else {
					lifted.Restore(&p.TextDocument.Text)
				}
				if p.TextDocument.Text != text {
					b.Fatal(len(p.TextDocument.Text))
				}
			}
		})
	}
}
