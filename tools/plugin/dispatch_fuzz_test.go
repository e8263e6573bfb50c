package plugin

import (
	"testing"

	"go.uber.org/zap"
)

// FuzzDispatch feeds arbitrary plugin output lines to the router: it may
// reject them, never panic, and a reply only reaches the call it names.
func FuzzDispatch(f *testing.F) {
	for _, seed := range []string{
		`{"type":"result","call_id":"a","content":[{"type":"text","text":"x"}],"is_error":true}`,
		`{"type":"init","tools":[{"name":"t","parameters":{"type":"object"}}]}`,
		`{"type":"result","call_id":"b","content":null}`,
		`{"type":"result","call_id":"a","content":[{"type":"image","data":"AAAA"}]}`,
		`garbage`, `[]`, `"text"`, `{"type":7}`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &process{logger: zap.NewNop(), pending: map[string]chan reply{}, initCh: make(chan initResponse, 1)}
		ch := make(chan reply, 1)
		p.pending["a"] = ch
		if err := p.dispatch(line); err != nil {
			return
		}
		select {
		case r := <-ch:
			if r.msg.CallID != "a" {
				t.Fatalf("reply for %q reached call a", r.msg.CallID)
			}
			_ = r.msg.text()
		default:
		}
		select {
		case msg := <-p.initCh:
			_ = validateTools(msg.Tools)
		default:
		}
	})
}
