package chatdoc

import (
	"sort"
	"strings"
)

// Parse reads a whole document. It never panics and runs in time linear in
// len(text): one scan for line starts, one scan over the lines.
func Parse(text string) *Document {
	t := newPieceText(text)
	d := &Document{Newline: detectNewline(text), Lines: newLineIndex(t)}
	d.setText(t, text, true)
	first, _ := lineAt(text, 0)
	_, d.firstLineOpener = frontmatterOpener(first)
	d.Frontmatter, d.bodyStart, d.fmDiags = parseFrontmatter(text)
	s := newBodyScanner(text, 0)
	d.Messages, _ = s.scan(d.bodyStart, nil)
	d.finish()
	return d
}

// finish computes the document-wide lists and diagnostics from the messages
// (finishSplice is the incremental counterpart).
func (d *Document) finish() {
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
	d.idFindings, d.ids = findIDProblems(d.ToolUses, d.ToolResults)
	d.Diagnostics = collectDiagnostics(d.fmDiags, d.Messages, d.idDiagnostics())
}

// detectNewline picks the style of the first line ending ("\n" if none).
func detectNewline(text string) string {
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// ToolUse returns the first tool use with that ID, or nil. O(1).
func (d *Document) ToolUse(id string) *ToolUse {
	if i, ok := d.ids.uses[id]; ok {
		return d.ToolUses[i]
	}
	return nil
}

// ToolResult returns the first tool result with that ID, or nil. O(1).
func (d *Document) ToolResult(id string) *ToolResult {
	if i, ok := d.ids.results[id]; ok {
		return d.ToolResults[i]
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
