package chatdoc

import (
	"sort"
	"strings"
)

// Parse reads a whole document. It never panics and runs in time linear in
// len(text): one scan for line starts, one scan over the lines.
func Parse(text string) *Document {
	d := &Document{Text: text, Newline: detectNewline(text), Lines: NewLineIndex(text)}
	d.Frontmatter, d.bodyStart, d.fmDiags = parseFrontmatter(text)
	s := newBodyScanner(text, 0)
	d.Messages, _ = s.scan(d.bodyStart, nil)
	d.finish(nil, false)
	return d
}

// finish computes the document-wide lists and diagnostics from the messages;
// findings are reused when the caller knows the IDs did not change.
func (d *Document) finish(findings []idFinding, reuse bool) {
	nu, nr := 0, 0
	for _, m := range d.Messages {
		nu += len(m.ToolUses)
		nr += len(m.ToolResults)
	}
	d.ToolUses = make([]*ToolUse, 0, nu)
	d.ToolResults = make([]*ToolResult, 0, nr)
	for _, m := range d.Messages {
		d.ToolUses = append(d.ToolUses, m.ToolUses...)
		d.ToolResults = append(d.ToolResults, m.ToolResults...)
	}
	if reuse {
		d.idFindings = findings
	} else {
		d.idFindings = findIDProblems(d.ToolUses, d.ToolResults)
	}
	d.Diagnostics = collectDiagnostics(d.fmDiags, d.Messages, d.idDiagnostics())
}

// detectNewline picks the style of the first line ending ("\n" if none).
func detectNewline(text string) string {
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// ToolUse returns the first tool use with that ID, or nil.
func (d *Document) ToolUse(id string) *ToolUse {
	for _, u := range d.ToolUses {
		if u.ID == id {
			return u
		}
	}
	return nil
}

// ToolResult returns the first tool result with that ID, or nil.
func (d *Document) ToolResult(id string) *ToolResult {
	for _, r := range d.ToolResults {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// MessageAt returns the message holding offset (a message owns its span up to
// the next marker; the last one owns the document end), or nil before the
// first marker.
func (d *Document) MessageAt(offset int) *Message {
	i := messageIndexAt(d.Messages, offset)
	if i < 0 {
		return nil
	}
	return d.Messages[i]
}

// messageIndexAt is the index of the last message starting at or before offset.
func messageIndexAt(msgs []*Message, offset int) int {
	return sort.Search(len(msgs), func(i int) bool { return msgs[i].Span.Start > offset }) - 1
}
