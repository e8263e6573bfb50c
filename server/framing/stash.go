package framing

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/chatls/chatls/internal/jsonfast"
)

// A large frame — didOpen of a 10 MB document — would cost sourcegraph/
// jsonrpc2 about ten times its size: Request.UnmarshalJSON decodes the
// params into generic values and encodes them again, and the handler
// decodes them a third time. Such a frame goes to jsonrpc2 with its params
// replaced by a small stand-in, `{"chatls.framing.stashed":N}`; the params
// themselves (a slice of the frame, not copied) wait here until the handler
// swaps them back in (Unstash). Small frames pass untouched.

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
	env, ok := readEnvelope(body)
	if !ok || len(env.Method) == 0 || len(env.Params) == 0 || string(env.Params) == "null" {
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

// readEnvelope reads the envelope's members as encoding/json.Unmarshal
// would, each kept as the raw bytes of its value, with the fast reader
// (one pass, where encoding/json makes three over a 10 MB frame). A key
// that names a member only ignoring case, which encoding/json would take
// too, sends the frame to encoding/json, as does anything the fast reader
// refuses.
func readEnvelope(body []byte) (envelope, bool) {
	var env envelope
	fields := map[string]*json.RawMessage{"jsonrpc": &env.JSONRPC, "id": &env.ID, "method": &env.Method,
		"params": &env.Params, "meta": &env.Meta, "result": &env.Result, "error": &env.Error}
	text := bytesView(body)
	ok := jsonfast.EachMember(text, func(key, raw string) bool {
		if field := fields[key]; field != nil {
			at := offsetIn(text, raw)
			*field = body[at : at+len(raw) : at+len(raw)] // the last duplicate wins, as in encoding/json
			return true
		}
		return !foldsToMember(key, fields)
	})
	if ok {
		return env, true
	}
	env = envelope{}
	return env, json.Unmarshal(body, &env) == nil
}

// foldsToMember: encoding/json would fill one of fields from key (it
// matches names ignoring case, with Unicode's folds for non-ASCII keys).
func foldsToMember(key string, fields map[string]*json.RawMessage) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return true
		}
	}
	_, ok := fields[strings.ToLower(key)]
	return ok
}

// bytesView is b as a string without a copy; b is not written afterwards.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// offsetIn is where sub, a substring of text, starts in it.
func offsetIn(text, sub string) int {
	if len(sub) == 0 {
		return 0
	}
	return int(uintptr(unsafe.Pointer(unsafe.StringData(sub))) - uintptr(unsafe.Pointer(unsafe.StringData(text))))
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
