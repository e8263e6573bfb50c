package cycle

import (
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// Response builds the text of a streamed `@Assistant:` message in the
// shapes Flemma writes (SPEC §7 "What the document gets"), so Flemma reads
// the file back and the next request carries the signatures. Each method
// returns the text to append next; thinking waits for the end of the
// message, as Flemma writes it.
type Response struct {
	tail     string // the last two characters written, header included
	content  bool   // the message has content (Flemma's _has_content)
	thinking []ResponseThinking
}

// ResponseThinking is a finished reasoning block of the answer.
type ResponseThinking struct {
	Text      string
	Signature *chatdoc.ThinkingSignature // nil: none
	Redacted  bool                       // Text is the opaque data
}

// AbortedByUser is the marker text of a cancelled response (SPEC §7).
const AbortedByUser = "Response interrupted by the user."

// Start returns the `@Assistant:` line to append to a document whose text
// ends with tail (its last characters): a blank line before it.
func (r *Response) Start(tail string) string {
	var head string
	switch {
	case tail == "" || strings.HasSuffix(tail, "\n\n"):
	case strings.HasSuffix(tail, "\n"):
		head = "\n"
	default:
		head = "\n\n"
	}
	return r.add(head + "@Assistant:\n")
}

// Text is a piece of the answer, as received.
func (r *Response) Text(s string) string {
	if s == "" {
		return ""
	}
	r.content = true
	return r.add(s)
}

// ToolUse is a finished call: its compact JSON input in a fence longer
// than any backtick run inside it.
func (r *Response) ToolUse(name, id, input string) string {
	fence := strings.Repeat("`", max(3, longestRun(input, '`')+1))
	block := r.prefix() + "**Tool Use:** `" + name + "` (`" + id + "`)\n\n" + fence + "json\n" + input + "\n" + fence + "\n"
	r.content = true
	return r.add(block)
}

// Thinking keeps a finished reasoning block for the end of the message.
func (r *Response) Thinking(t ResponseThinking) { r.thinking = append(r.thinking, t) }

// Content says whether anything of the answer was written yet.
func (r *Response) Content() bool { return r.content }

// End writes the reasoning blocks, the abort marker when abort is not
// empty, and the next `@You:` (the text ends "\n\n@You:\n\n").
func (r *Response) End(abort string) string {
	var b strings.Builder
	for _, t := range r.thinking {
		b.WriteString(r.thinkingBlock(t))
	}
	if abort != "" {
		b.WriteString(r.add(r.blankLine() + "<!-- flemma:aborted: " + abort + " -->\n"))
	}
	b.WriteString(r.add(r.blankLine() + "@You:\n\n"))
	return b.String()
}

func (r *Response) thinkingBlock(t ResponseThinking) string {
	if t.Redacted {
		prefix := "\n"
		if strings.HasSuffix(r.tail, "\n") {
			prefix = ""
		}
		r.content = true
		return r.add(prefix + "<thinking redacted>\n" + t.Text + "\n</thinking>\n")
	}
	text := strings.TrimSpace(t.Text)
	signed := t.Signature != nil && t.Signature.Value != ""
	if text == "" && !signed {
		return ""
	}
	open := "<thinking>"
	if signed {
		open = "<thinking " + t.Signature.Provider + `:signature="` + t.Signature.Value + `">`
	}
	block := r.prefix() + open + "\n"
	if text != "" {
		block += text + "\n"
	}
	block += "</thinking>\n"
	r.content = true
	return r.add(block)
}

// prefix separates a block from the content before it: none at the start
// of the message, else a blank line (Flemma's _get_content_prefix).
func (r *Response) prefix() string {
	switch {
	case !r.content:
		return ""
	case strings.HasSuffix(r.tail, "\n"):
		return "\n"
	}
	return "\n\n"
}

// blankLine is what makes the next line follow a blank line.
func (r *Response) blankLine() string {
	switch {
	case strings.HasSuffix(r.tail, "\n\n"):
		return ""
	case strings.HasSuffix(r.tail, "\n"):
		return "\n"
	}
	return "\n\n"
}

func (r *Response) add(s string) string {
	t := r.tail + s
	if len(t) > 2 {
		t = t[len(t)-2:]
	}
	r.tail = t
	return s
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
