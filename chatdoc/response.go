package chatdoc

import (
	"strings"
)

// Response builds the text of a streamed `@Assistant:` message in the
// shapes Flemma writes (SPEC §7 "What the document gets"), so Flemma reads
// the file back and the next request carries the signatures. Each method
// returns the text to append next; thinking waits for the end of the
// message, as Flemma writes it.
//
// The model's text never creates structure (SPEC §1): a line of it that
// would read as a role marker, a tool or result header, an abort marker or
// a thinking opener outside a fence is written with one leading space
// (ReadStreamedLine). Text arrives split anywhere, so the start of
// such a line is held back until it is decided — at most the current
// line, and only while it begins with `@`, `*` or `<` — and a fence the
// model opened is closed before chatls writes a block of its own, so it
// can't swallow the tool uses, the abort marker or the `@You:` after it.
type Response struct {
	// SpacedHeaders puts a blank line between a tool use's header and its
	// fence, for a document that writes its headers so (HeaderGap); the
	// zero value writes them compact, Flemma 0.13's default (SPEC §1).
	SpacedHeaders bool

	tail     string // the last two characters written, header included
	content  bool   // something of the answer was written (or is held)
	lead     string // whitespace-only text before content: not written
	thinking []ResponseThinking

	held  string // the start of the current line, not written yet
	hold  bool   // the current line is being decided
	mid   bool   // a line of text is started (its start decided)
	fence int    // backticks of the fence the text is inside, 0: none
	line  fenceLine
}

// fenceLine is what a fence needs to know of the current line of text.
type fenceLine struct {
	ticks     int  // backticks at its start
	lead      bool // still in those backticks
	otherTick bool // a backtick after them
	nonSpace  bool // something other than blanks after them
}

// ResponseThinking is a finished reasoning block of the answer.
type ResponseThinking struct {
	Text      string
	Signature *ThinkingSignature // nil: none
	Redacted  bool               // Text is the opaque data
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

// Text is a piece of the answer, as received, and returns what can be
// written of it now: a line that could still read as structure waits for
// the piece that decides it (the next call, or the block or end that
// follows, which write it first). A piece of only whitespace before any
// content is not written (Flemma 0.14's on_content skips it: models with
// adaptive thinking send one before their thinking).
func (r *Response) Text(s string) string {
	if s == "" {
		return ""
	}
	if !r.content && strings.Trim(s, asciiSpace) == "" {
		r.lead += s
		return ""
	}
	r.content = true
	var out strings.Builder
	for s != "" {
		part := s
		nl := strings.IndexByte(s, '\n')
		if nl >= 0 {
			part = s[:nl+1]
		}
		s = s[len(part):]
		body := strings.TrimSuffix(part, "\n")
		if !r.mid && !r.hold && r.fence == 0 && body != "" && strings.IndexByte("@*<", body[0]) >= 0 {
			r.hold = true
		}
		if r.hold {
			r.held += body
			reading := ReadStreamedLine(r.held, nl >= 0)
			if reading == LineOpen {
				continue // no line ending in part: s is empty
			}
			line := r.held
			if reading == LineStructure {
				line = " " + line
			}
			r.held, r.hold = "", false
			out.WriteString(r.add(line))
			part = part[len(body):]
		} else {
			r.track(body)
		}
		out.WriteString(r.add(part))
		r.mid = true
		if nl >= 0 {
			r.endLine()
		}
	}
	return out.String()
}

// track notes the fence facts of a piece of the current line.
func (r *Response) track(piece string) {
	l := &r.line
	for i := 0; i < len(piece); i++ {
		c := piece[i]
		switch {
		case !r.mid && i == 0:
			l.lead = c == '`'
			if l.lead {
				l.ticks = 1
			}
		case l.lead && c == '`':
			l.ticks++
		case c == '`':
			l.lead, l.otherTick, l.nonSpace = false, true, true
		default:
			l.lead = false
			if c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f' {
				l.nonSpace = true
			}
		}
	}
}

// endLine opens or closes the fence the line makes (the parser's rules:
// column 0, an opener of 3+ backticks with no other backtick, a closer of
// backticks only, at least as long).
func (r *Response) endLine() {
	l := r.line
	switch {
	case r.fence == 0 && l.ticks >= 3 && !l.otherTick:
		r.fence = l.ticks
	case r.fence > 0 && l.ticks >= r.fence && !l.nonSpace:
		r.fence = 0
	}
	r.line, r.mid = fenceLine{}, false
}

// settle writes the line held back and closes a fence the text left open,
// before a block of chatls's own: whatever chatls writes next starts on a
// line of its own, so the current line ends there.
func (r *Response) settle() string {
	var out string
	if r.hold {
		line := r.held
		if ReadStreamedLine(line, true) == LineStructure {
			line = " " + line
		}
		r.held, r.hold = "", false
		out = r.add(line)
		r.mid = true
	}
	if !r.mid && r.fence == 0 {
		return out
	}
	nl := ""
	if r.mid {
		nl = "\n"
		r.endLine()
	}
	if r.fence > 0 {
		out += r.add(nl + strings.Repeat("`", r.fence) + "\n")
		r.fence = 0
	}
	return out
}

// ToolUse is a finished call: its compact JSON input in a fence longer
// than any backtick run inside it, right under its header or after a
// blank line (SpacedHeaders).
func (r *Response) ToolUse(name, id, input string) string {
	held := r.settle()
	fence := strings.Repeat("`", max(3, longestRun(input, '`')+1))
	gap := ""
	if r.SpacedHeaders {
		gap = "\n"
	}
	block := r.prefix() + "**Tool Use:** `" + name + "` (`" + id + "`)\n" + gap + fence + "json\n" + input + "\n" + fence + "\n"
	if !r.content && strings.HasPrefix(block, "**Tool Use:**") {
		block = "\n" + block // Flemma puts a tool use that opens the answer after a blank line
	}
	r.content = true
	return held + r.add(block)
}

// Thinking keeps a finished reasoning block for the end of the message.
func (r *Response) Thinking(t ResponseThinking) { r.thinking = append(r.thinking, t) }

// Content says whether anything of the answer was written yet.
func (r *Response) Content() bool { return r.content }

// End writes the reasoning blocks, the abort marker when abort is not
// empty, and the next `@You:` (the text ends "\n\n@You:\n\n").
func (r *Response) End(abort string) string {
	var b strings.Builder
	b.WriteString(r.settle())
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
		// Flemma's _emit_redacted_thinking: no separator after a line
		// ending, else one; nothing written yet counts as no line ending.
		prefix := "\n"
		if r.content && strings.HasSuffix(r.tail, "\n") || !r.content && strings.HasSuffix(r.lead, "\n") {
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
// of the message, else a blank line (Flemma's _get_content_prefix). Its
// provider counts the whitespace it did not write as content, so a block
// after only that is separated too, by what that whitespace ends with.
func (r *Response) prefix() string {
	last := r.tail
	if !r.content {
		if r.lead == "" {
			return ""
		}
		last = r.lead
	}
	if strings.HasSuffix(last, "\n") {
		return "\n"
	}
	return "\n\n"
}

// asciiSpace is what Lua's %s matches (Flemma's "whitespace-only").
const asciiSpace = " \t\n\v\f\r"

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
