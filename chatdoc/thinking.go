package chatdoc

import "strings"

// ThinkingSignature is the `PROVIDER:signature="VALUE"` attribute of a
// thinking tag: the API family that signed the block and its opaque value.
type ThinkingSignature struct {
	Provider string
	Value    string
}

// Signature reads the tag's signature attribute as Flemma does
// (`<thinking anthropic:signature="…">`); nil when there is none.
func (t *Thinking) Signature() *ThinkingSignature {
	a := strings.TrimSpace(t.Attrs)
	const attr = `:signature="`
	colon := strings.Index(a, attr)
	// The closing quote must follow the opening one (`a:signature="` alone is none).
	if colon <= 0 || len(a) < colon+len(attr)+1 || !strings.HasSuffix(a, `"`) {
		return nil
	}
	provider, value := a[:colon], a[colon+len(attr):len(a)-1]
	for i := 0; i < len(provider); i++ {
		if !isWordByte(provider[i]) {
			return nil
		}
	}
	if strings.IndexByte(value, '"') >= 0 {
		return nil
	}
	return &ThinkingSignature{Provider: provider, Value: value}
}

// Redacted reports a `<thinking redacted>` block, whose content is the
// provider's encrypted data.
func (t *Thinking) Redacted() bool { return strings.TrimSpace(t.Attrs) == "redacted" }

// ThinkingContent is the text between the block's tags: its lines joined
// with "\n" (line endings' CR dropped), as Flemma sends it. A self-closing
// tag has none; an unclosed block runs to the next role marker.
func (d *Document) ThinkingContent(t *Thinking) string {
	if t.SelfClosing {
		return ""
	}
	text := d.Slice(t.Span.Start, t.Span.End)
	nl := strings.IndexByte(text, '\n')
	if nl < 0 {
		return ""
	}
	body := text[nl+1:]
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if n := len(lines); n > 0 && isThinkingClose(lines[n-1]) {
		lines = lines[:n-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return strings.Join(lines, "\n")
}

// ThinkingClosed reports whether the block ends with its `</thinking>`
// line (or is self-closing). An unclosed block is thinking all the same
// (Flemma 0.14): it runs to the end of its message and is sent as thinking.
func (d *Document) ThinkingClosed(t *Thinking) bool {
	if t.SelfClosing {
		return true
	}
	text := strings.TrimRight(d.Slice(t.Span.Start, t.Span.End), "\r\n")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	return strings.Contains(text, "\n") && isThinkingClose(last)
}
