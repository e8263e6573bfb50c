package cycle

import (
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// TextStoppedStreaming is the abort message of an answer that a crash (a
// kill, a restart) cut off while it streamed (SPEC §7).
const TextStoppedStreaming = "Response interrupted: chatls stopped while it streamed."

// CutAnswer builds the edit that closes an answer a crash cut off, or says
// there is none. chatls ends every answer it writes with `@You:` (after an
// abort marker when it failed), so an `@Assistant:` message that ends the
// document with neither is one whose end never came. The edit closes what
// the cut left open (a fence, a thinking block), then adds the abort
// marker and `@You:`: the document ends "\n\n@You:\n\n", and the marker
// makes the message's unanswered tool uses `aborted` (SPEC §1).
//
// One such message is not cut: its tool uses are all complete (closed
// fences) and nothing but blank lines follows the last one — an answer
// pasted or written by hand, whose calls phase 1 answers as usual (the
// placeholders bring their own `@You:`). The caller makes sure no answer
// is streaming into the document now.
func CutAnswer(doc *chatdoc.Document) (chatdoc.TextEdit, bool) {
	n := doc.MessageCount()
	if n == 0 {
		return chatdoc.TextEdit{}, false
	}
	m := doc.Message(n - 1)
	if m.Role != "Assistant" || m.Abort() != nil {
		return chatdoc.TextEdit{}, false
	}
	if k := len(m.ToolUses); k > 0 {
		complete := true
		for _, u := range m.ToolUses {
			if u.Fence == nil || !u.Fence.Closed() {
				complete = false
			}
		}
		last := m.ToolUses[k-1]
		if complete && strings.TrimSpace(doc.Slice(last.Span.End, m.Span.End)) == "" {
			return chatdoc.TextEdit{}, false
		}
	}
	nl := doc.Newline
	end := doc.Len()
	var b strings.Builder
	if end > 0 && !strings.HasSuffix(doc.Slice(max(0, end-1), end), "\n") {
		b.WriteString(nl)
	}
	if k := len(m.Fences); k > 0 && !m.Fences[k-1].Closed() {
		b.WriteString(strings.Repeat("`", m.Fences[k-1].Ticks) + nl)
	}
	if th := m.Thinking(); len(th) > 0 && !th[len(th)-1].SelfClosing && !doc.ThinkingClosed(th[len(th)-1]) {
		b.WriteString("</thinking>" + nl)
	}
	tail := doc.Slice(max(0, end-2*len(nl)), end) + b.String()
	if !strings.HasSuffix(tail, nl+nl) {
		b.WriteString(nl)
	}
	b.WriteString("<!-- flemma:aborted: " + TextStoppedStreaming + " -->" + nl + nl + "@You:" + nl + nl)
	return chatdoc.TextEdit{Span: chatdoc.Span{Start: end, End: end}, NewText: b.String()}, true
}
