package cycle

import (
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// Escape is how the user let one bash call leave the sandbox (SPEC §5):
// `sandbox=off` (or `sandbox=false`) in the approved placeholder runs it
// outside the sandbox's file system and environment with the network still
// off; `network=on` (or `network=true`) gives it the network, inside the
// sandbox or, with sandbox=off, outside with the host's network.
type Escape struct {
	Outside, Network bool
}

// EscapeOf reads the escape words of a placeholder's header.
func EscapeOf(r *chatdoc.ToolResult) Escape {
	var e Escape
	if r == nil {
		return e
	}
	for _, kv := range r.Extra() {
		v := strings.ToLower(kv.Value)
		switch strings.ToLower(kv.Key) {
		case "sandbox":
			e.Outside = e.Outside || v == "off" || v == "false"
		case "network":
			e.Network = e.Network || v == "on" || v == "true"
		}
	}
	return e
}

// escapeBook remembers the escape words each placeholder had when this
// session first saw it (text on open, a placeholder pasted or streamed in)
// and the words the user's approval added since: only those count, so a
// placeholder that already said sandbox=off, or a model's text, means
// nothing.
type escapeBook struct {
	first   map[string]Escape
	granted map[string]Escape
}

func (b *escapeBook) seen(r *chatdoc.ToolResult) {
	if b.first == nil {
		b.first = map[string]Escape{}
	}
	if _, ok := b.first[r.ID]; !ok {
		b.first[r.ID] = EscapeOf(r)
	}
}

// placed records a placeholder the server writes: no escape words.
func (b *escapeBook) placed(id string) {
	if b.first == nil {
		b.first = map[string]Escape{}
	}
	b.first[id] = Escape{}
}

// approved records the user's approval of r: what it carries beyond what
// the placeholder had at first sight.
func (b *escapeBook) approved(r *chatdoc.ToolResult) {
	was := b.first[r.ID]
	now := EscapeOf(r)
	g := Escape{Outside: now.Outside && !was.Outside, Network: now.Network && !was.Network}
	if b.granted == nil {
		b.granted = map[string]Escape{}
	}
	if g == (Escape{}) {
		delete(b.granted, r.ID)
		return
	}
	b.granted[r.ID] = g
}

func (b *escapeBook) withdraw(id string) { delete(b.granted, id) }

func (b escapeBook) clone() escapeBook {
	c := escapeBook{first: make(map[string]Escape, len(b.first)), granted: make(map[string]Escape, len(b.granted))}
	for k, v := range b.first {
		c.first[k] = v
	}
	for k, v := range b.granted {
		c.granted[k] = v
	}
	return c
}

// SandboxEscape is how the call u may leave the sandbox: what the user's
// approval in this session added and its placeholder r still says, for
// the input the user approved; nothing otherwise.
func (l *Ledger) SandboxEscape(u *chatdoc.ToolUse, r *chatdoc.ToolResult) Escape {
	if u == nil || r == nil || r.ID != u.ID || !l.UserApproved(u) {
		return Escape{}
	}
	g, now := l.escapes.granted[u.ID], EscapeOf(r)
	return Escape{Outside: g.Outside && now.Outside, Network: g.Network && now.Network}
}
