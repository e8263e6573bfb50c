package chatdoc

import (
	"encoding/json"
	"fmt"
	"strings"
)

// dump renders a document as readable text for golden files: every node
// with its LSP range (utf-16), so a reviewer can check it by eye.
func dump(d *Document) string {
	var b strings.Builder
	rng := func(s Span) string {
		r := d.Range(s, UTF16)
		return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	fmt.Fprintf(&b, "newline %q, %d lines\n", d.Newline, d.Lines.LineCount())
	if fm := d.Frontmatter; fm != nil {
		fmt.Fprintf(&b, "frontmatter %s %s\n", fm.Language, rng(fm.Span))
	}
	for i, m := range d.Messages() {
		fmt.Fprintf(&b, "message %d @%s %s marker %s\n", i, m.Role, rng(m.Span), rng(m.MarkerSpan))
		for _, f := range m.Fences {
			fmt.Fprintf(&b, "  fence %s ticks=%d info=%q closed=%v content %s\n", rng(f.Span), f.Ticks, f.Info, f.Closed(), rng(f.ContentSpan))
		}
		for _, t := range m.Thinking() {
			fmt.Fprintf(&b, "  thinking %s attrs=%q selfClosing=%v\n", rng(t.Span), t.Attrs, t.SelfClosing)
		}
		if a := m.Abort(); a != nil {
			fmt.Fprintf(&b, "  abort %s %q\n", rng(a.Span), a.Message)
		}
		for _, f := range m.FileRefs() {
			fmt.Fprintf(&b, "  fileref %s %q\n", rng(f.Span), f.Path)
		}
		for _, u := range m.ToolUses {
			fmt.Fprintf(&b, "  tool use %s name %q %s id %q %s", rng(u.Span), u.Name, rng(u.NameSpan()), u.ID, rng(u.IDSpan()))
			if u.Valid() {
				in, _ := json.Marshal(u.Input())
				fmt.Fprintf(&b, " input %s\n", in)
			} else {
				fmt.Fprintf(&b, " INVALID %q\n", u.InputError)
			}
		}
		for _, r := range m.ToolResults {
			fmt.Fprintf(&b, "  tool result %s id %q status=%q dialect=%q", rng(r.Span), r.ID, r.Status, r.Dialect)
			if r.StatusSpan() != (Span{}) {
				fmt.Fprintf(&b, " statusSpan %s=%q", rng(r.StatusSpan()), d.Text()[r.StatusSpan().Start:r.StatusSpan().End])
			}
			if len(r.Extra()) > 0 {
				fmt.Fprintf(&b, " extra %v", r.Extra())
			}
			fmt.Fprintf(&b, " fence=%v content %q\n", r.Fence != nil, r.Content)
		}
	}
	for _, dg := range d.Diagnostics() {
		fmt.Fprintf(&b, "diagnostic %s sev=%d %s id=%q: %s\n", rng(dg.Span), dg.Severity, dg.Code, dg.ToolID, dg.Message)
	}
	return b.String()
}
