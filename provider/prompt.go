package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// PromptOptions are what building a prompt needs beyond the document.
type PromptOptions struct {
	DocPath string // the document's file; "" for an unsaved buffer
	Home    string // for @~/ references; "" when unknown
	Tools   []ToolDef
	// ReadFile reads an attachment (os.ReadFile when nil).
	ReadFile func(path string) ([]byte, error)
}

// OrphanText is the synthetic result a tool use without a result gets.
const OrphanText = "No result provided"

// BuildPrompt maps the document to the model's view of it (SPEC §7 "What the
// model gets", as Flemma's pipeline): the last @System: message is the
// system prompt, @You:/@Assistant: messages are the turns, other roles are
// dropped. Problems with Severity Error stop the send; the prompt is still
// returned for inspection.
func BuildPrompt(doc *chatdoc.Document, opts PromptOptions) (*Prompt, []Problem) {
	b := &promptBuilder{doc: doc, opts: opts}
	if b.opts.ReadFile == nil {
		b.opts.ReadFile = os.ReadFile
	}
	p := &Prompt{Tools: opts.Tools}
	if opts.DocPath != "" {
		sum := sha256.Sum256([]byte(opts.DocPath))
		p.CacheKey = "chatls-" + hex.EncodeToString(sum[:12])
	}
	for _, m := range doc.Messages() {
		switch m.Role {
		case "System":
			p.System = strings.TrimSpace(b.systemText(m))
		case "You":
			p.Messages = append(p.Messages, Message{Role: "user", Parts: b.userParts(m)})
		case "Assistant":
			p.Messages = append(p.Messages, Message{Role: "assistant", Parts: b.assistantParts(m)})
		}
	}
	p.Messages = b.pairResults(p.Messages)
	b.closeTemplates()
	return p, b.problems
}

type promptBuilder struct {
	doc      *chatdoc.Document
	opts     PromptOptions
	problems []Problem
	tmpl     *templateEnv
}

func (b *promptBuilder) problem(span chatdoc.Span, sev Severity, format string, args ...any) {
	b.problems = append(b.problems, Problem{Span: span, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// segment is a block inside a message that is not text: a tool result, a
// tool use, a thinking block, an abort marker.
type segment struct {
	span chatdoc.Span
	part func() (Part, bool)
}

// contentStart is where a message's content begins: the line after its
// marker (Flemma's markers stand alone on their line; text after "@You:" on
// the marker line is part of the first line of content here).
func (b *promptBuilder) contentStart(m *chatdoc.Message) (start int, inline string) {
	marker := b.doc.Slice(m.MarkerSpan.Start, m.MarkerSpan.End)
	if i := strings.IndexByte(marker, ':'); i >= 0 {
		inline = strings.TrimSpace(marker[i+1:])
	}
	end := m.MarkerSpan.End
	rest := b.doc.Slice(end, min(end+2, m.Span.End))
	switch {
	case strings.HasPrefix(rest, "\r\n"):
		end += 2
	case strings.HasPrefix(rest, "\n"), strings.HasPrefix(rest, "\r"):
		end++
	}
	return end, inline
}

// runs splits a message into its text runs and segments, in order. The
// message's trailing empty lines are not content (Flemma strips them, which
// keeps the cache prefix stable while the user types below).
func (b *promptBuilder) runs(m *chatdoc.Message, segs []segment, text func(s string, span chatdoc.Span), seg func(segment)) {
	start, pending := b.contentStart(m)
	flush := func(from, to int, last bool) {
		s := linesOf(b.doc.Slice(from, to), last)
		if pending != "" {
			if from < to {
				s = pending + "\n" + s
			} else {
				s = pending
			}
			pending = ""
		}
		if s != "" {
			text(s, chatdoc.Span{Start: from, End: to})
		}
	}
	slices.SortFunc(segs, func(x, y segment) int { return x.span.Start - y.span.Start })
	pos := start
	for _, sg := range segs {
		if sg.span.Start < pos {
			continue
		}
		if sg.span.Start > pos || pending != "" {
			flush(pos, sg.span.Start, false)
		}
		seg(sg)
		pos = sg.span.End
	}
	if pos < m.Span.End || pending != "" {
		flush(pos, m.Span.End, true)
	}
}

// linesOf is a run of lines as Flemma joins them: line endings' CR dropped,
// joined with "\n", without the run's final line ending; the message's last
// run also loses its trailing empty lines.
func linesOf(s string, last bool) string {
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	s = strings.TrimSuffix(s, "\n")
	if last {
		s = strings.TrimRight(s, "\n")
	}
	return s
}

func (b *promptBuilder) systemText(m *chatdoc.Message) string {
	var texts []string
	b.runs(m, nil, func(s string, span chatdoc.Span) {
		for _, p := range b.expand(m, s, span) {
			switch {
			case p.Kind == PartText:
				texts = append(texts, p.Text)
			case p.Kind == PartFile && p.File.IsText():
				texts = append(texts, string(p.File.Data))
			case p.Kind == PartFile:
				b.problem(span, Error,
					"%s can't go into the system prompt: only text files can (%s)", p.File.Path, p.File.MIME)
			}
		}
	}, nil)
	return strings.Join(texts, "\n")
}

func (b *promptBuilder) userParts(m *chatdoc.Message) []Part {
	var parts []Part
	segs := make([]segment, 0, len(m.ToolResults))
	for _, r := range m.ToolResults {
		segs = append(segs, segment{span: r.Span, part: func() (Part, bool) {
			if r.IsPlaceholder() {
				return Part{}, false // an open placeholder: its use is an orphan
			}
			return Part{Kind: PartToolResult, ID: r.ID, Text: r.Content, IsError: r.Status == chatdoc.StatusError}, true
		}})
	}
	for _, j := range b.doc.JobResultsIn(m) {
		segs = append(segs, segment{span: j.Span, part: func() (Part, bool) {
			return Part{Kind: PartText, Text: b.jobLabel(j.Job) + "\n" + j.Content}, true
		}})
	}
	b.runs(m, segs, func(s string, span chatdoc.Span) {
		parts = append(parts, b.expand(m, s, span)...)
	}, func(s segment) {
		if p, ok := s.part(); ok {
			parts = append(parts, p)
		}
	})
	return parts
}

// jobLabel is what a job's result is sent under, as Flemma sends it:
// `[Job result for NAME (ID)]`, the call that started the job, or
// `[Job result for unknown tool (job: JOB)]` when no result names it.
func (b *promptBuilder) jobLabel(job string) string {
	for _, r := range b.doc.ToolResults() {
		if r.Job() != job {
			continue
		}
		if u := b.doc.ToolUse(r.ID); u != nil {
			return "[Job result for " + u.Name + " (" + r.ID + ")]"
		}
	}
	return "[Job result for unknown tool (job: " + job + ")]"
}

func (b *promptBuilder) assistantParts(m *chatdoc.Message) []Part {
	var parts []Part
	var segs []segment
	for _, u := range m.ToolUses {
		segs = append(segs, segment{span: u.Span, part: func() (Part, bool) {
			return Part{Kind: PartToolUse, ID: u.ID, Name: u.Name, Input: compactInput(u)}, true
		}})
	}
	for _, t := range m.Thinking() {
		segs = append(segs, segment{span: t.Span, part: func() (Part, bool) {
			// An unclosed block is thinking too (Flemma 0.14: it runs to the
			// end of its message), sent as any other without the message's
			// trailing blank lines.
			text := b.doc.ThinkingContent(t)
			if !b.doc.ThinkingClosed(t) {
				text = strings.TrimRight(text, "\r\n")
			}
			return Part{Kind: PartThinking, Text: text, Signature: t.Signature(), Redacted: t.Redacted()}, true
		}})
	}
	if a := m.Abort(); a != nil {
		segs = append(segs, segment{span: a.Span, part: func() (Part, bool) {
			return Part{Kind: partAborted, Text: a.Message}, true
		}})
	}
	b.runs(m, segs, func(s string, _ chatdoc.Span) {
		parts = append(parts, Part{Kind: PartText, Text: s})
	}, func(s segment) {
		if p, ok := s.part(); ok {
			parts = append(parts, p)
		}
	})
	return resolveAborted(parts, len(m.ToolUses) == 0)
}

// partAborted stands for an abort marker until resolveAborted decides.
const partAborted PartKind = -1

// resolveAborted keeps an abort marker as the text `<!-- MESSAGE -->` when
// the message has no tool use, else drops it; trailing whitespace-only text
// goes (Flemma's resolve_aborted_parts).
func resolveAborted(parts []Part, keep bool) []Part {
	out := parts[:0]
	for _, p := range parts {
		if p.Kind == partAborted {
			if keep {
				out = append(out, Part{Kind: PartText, Text: "<!-- " + p.Text + " -->"})
			}
			continue
		}
		out = append(out, p)
	}
	for len(out) > 0 && out[len(out)-1].Kind == PartText && strings.TrimSpace(out[len(out)-1].Text) == "" {
		out = out[:len(out)-1]
	}
	return out
}

// compactInput is the tool use's input as written, compacted; an input
// that does not parse is sent as {} (the cycle has answered it with an
// error result already).
func compactInput(u *chatdoc.ToolUse) []byte {
	if !u.Valid() {
		return []byte("{}")
	}
	return compactJSON(u.RawInput)
}
