package framing

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
)

// A large frame — didOpen of a 10 MB document — would cost sourcegraph/
// jsonrpc2 about ten times its size: Request.UnmarshalJSON decodes the
// params into generic values and encodes them again, and the handler
// decodes them a third time. Such a frame goes to jsonrpc2 with its params
// replaced by a small stand-in, `{"chatls.framing.stashed":N}`; the params
// themselves wait here, copied once, until the handler swaps them back in
// (Unstash). Small frames pass untouched.

// stashMin is the frame size from which params are stashed (a variable so
// tests can stash small frames).
var stashMin = 256 << 10

const stashKey = `{"chatls.framing.stashed":`

type stash struct {
	mu   sync.Mutex
	next uint64
	held map[uint64]json.RawMessage
}

// envelope is the members of a message jsonrpc2 reads, each kept verbatim
// (a missing member stays missing, a null stays null).
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Meta    json.RawMessage `json:"meta"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// lighten returns body with a large request's params stashed under n, or
// body and 0. Members other than the envelope's are dropped from a
// lightened frame (jsonrpc2 would only have kept them as ExtraFields, which
// nothing reads).
func (s *Stream) lighten(body []byte) ([]byte, uint64) {
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(body) < stashMin || len(trimmed) == 0 || trimmed[0] != '{' {
		return body, 0
	}
	var env envelope
	if json.Unmarshal(body, &env) != nil || len(env.Method) == 0 || len(env.Params) == 0 || string(env.Params) == "null" {
		return body, 0 // not a request with params: jsonrpc2 says what is wrong
	}
	small := map[string]json.RawMessage{"jsonrpc": env.JSONRPC, "id": env.ID, "method": env.Method, "meta": env.Meta, "result": env.Result, "error": env.Error}
	for key, raw := range small {
		if len(raw) == 0 {
			delete(small, key) // missing stays missing
		}
	}
	n := s.held.put(env.Params)
	small["params"] = json.RawMessage(stashKey + strconv.FormatUint(n, 10) + "}")
	out, err := json.Marshal(small)
	if err != nil {
		s.held.take(n)
		return body, 0
	}
	return out, n
}

// Unstash returns the params a lightened frame stood in for, taking them
// from the stash, or params itself. The handler calls it once for every
// request; a nil Stream has nothing stashed.
func (s *Stream) Unstash(params *json.RawMessage) *json.RawMessage {
	if s == nil || params == nil || len(*params) > 64 {
		return params
	}
	digits, ok := bytes.CutPrefix(*params, []byte(stashKey))
	if !ok {
		return params
	}
	n, err := strconv.ParseUint(string(bytes.TrimSuffix(digits, []byte("}"))), 10, 64)
	if err != nil {
		return params
	}
	raw, ok := s.held.take(n)
	if !ok {
		return params // not one of ours: the client sent it
	}
	return &raw
}

func (st *stash) put(raw json.RawMessage) uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.held == nil {
		st.held = map[uint64]json.RawMessage{}
	}
	st.next++
	st.held[st.next] = raw
	return st.next
}

func (st *stash) take(n uint64) (json.RawMessage, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	raw, ok := st.held[n]
	delete(st.held, n)
	return raw, ok
}
