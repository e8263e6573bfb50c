package chatdoc

import (
	"fmt"
	"sort"
	"strings"
)

// TextEdit replaces Span of the document's text with NewText.
type TextEdit struct {
	Span    Span
	NewText string
}

// ApplyEdits applies non-overlapping edits given in any order (edits at the
// same offset keep their order). An edit that overlaps an earlier one, or
// lies outside the text, is skipped rather than corrupting the text.
func ApplyEdits(text string, edits []TextEdit) string {
	if len(edits) == 0 {
		return text
	}
	sorted := append([]TextEdit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Span.Start < sorted[j].Span.Start })
	var b strings.Builder
	b.Grow(len(text))
	pos := 0
	for _, e := range sorted {
		if e.Span.Start < pos || e.Span.End < e.Span.Start || e.Span.End > len(text) {
			continue
		}
		b.WriteString(text[pos:e.Span.Start])
		b.WriteString(e.NewText)
		pos = e.Span.End
	}
	b.WriteString(text[pos:])
	return b.String()
}

// PlaceholderRequest asks for a placeholder for one tool use.
type PlaceholderRequest struct {
	ID     string
	Status Status // empty means pending
	Extra  []KV
	// Result, when set, is written instead of a placeholder: a finished
	// result (an input the schema rejects gets its error at once).
	Result *ResultText
	// Use, when set, is the tool use answered: a later use of an ID an
	// earlier one has, whose result goes after its own message however
	// the ID is answered elsewhere. Unset: the first use with ID, which must
	// have no result yet.
	Use *ToolUse
}

// ResultText is a finished result's content.
type ResultText struct {
	Content string
	IsError bool
}

// InsertPlaceholders builds the edits that add placeholders for tool uses of
// one Assistant message into the You message after it (SPEC §1), creating
// that message when missing. New results go after existing results for
// earlier tool uses and before results for later ones, so the You message
// keeps tool-use order; each is preceded by a blank line.
func InsertPlaceholders(d *Document, reqs []PlaceholderRequest, dialect Dialect) ([]TextEdit, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	type item struct {
		req   PlaceholderRequest
		order int // index of the tool use in its message
	}
	items := make([]item, 0, len(reqs))
	msgIndex := -1
	for _, req := range reqs {
		u := req.Use
		if u == nil {
			u = d.ToolUse(req.ID)
		}
		if u == nil {
			return nil, fmt.Errorf("no tool use with ID %s", req.ID)
		}
		if msgIndex >= 0 && u.Message != msgIndex {
			return nil, fmt.Errorf("tool uses %s and %s are in different messages", reqs[0].ID, req.ID)
		}
		msgIndex = u.Message
		if req.Use == nil && d.ToolResult(req.ID) != nil {
			return nil, fmt.Errorf("tool use %s already has a result", req.ID)
		}
		order := toolUseOrder(d.Message(msgIndex), req.ID)
		for i, mu := range d.Message(msgIndex).ToolUses {
			if req.Use != nil && mu.HeaderSpan == req.Use.HeaderSpan {
				order = i
			}
		}
		items = append(items, item{req, order})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].order < items[j].order })

	nl := d.Newline
	gap := d.HeaderGap()
	assistant := d.Message(msgIndex)
	if msgIndex+1 >= d.MessageCount() || d.Message(msgIndex+1).Role != "You" {
		// No You message: create one where the next message (or the end) starts.
		at := assistant.Span.End
		var b strings.Builder
		if at > 0 && d.Slice(at-1, at) != "\n" {
			b.WriteString(nl)
		}
		b.WriteString("@You:" + nl)
		for _, it := range items {
			b.WriteString(nl + placeholderText(it.req, dialect, nl, gap))
		}
		if at < d.Len() {
			b.WriteString(nl) // blank line before the next marker
		}
		return []TextEdit{{Span: Span{at, at}, NewText: b.String()}}, nil
	}

	you := d.Message(msgIndex + 1)
	var edits []TextEdit
	var pendingAfter string
	for _, it := range items {
		at, before, after := placeholderSlot(d, assistant, you, it.order)
		block := placeholderText(it.req, dialect, nl, gap)
		if n := len(edits); n > 0 && edits[n-1].Span.Start == at {
			edits[n-1].NewText += nl + block // same slot: one blank line between
			continue
		}
		if n := len(edits); n > 0 {
			edits[n-1].NewText += pendingAfter
		}
		edits = append(edits, TextEdit{Span: Span{at, at}, NewText: before + block})
		pendingAfter = after
	}
	edits[len(edits)-1].NewText += pendingAfter
	return edits, nil
}

func toolUseOrder(m *Message, id string) int {
	for i, u := range m.ToolUses {
		if u.ID == id {
			return i
		}
	}
	return -1
}

// placeholderSlot finds where a placeholder for the order-th tool use goes in
// the You message, with the line breaks needed around it.
func placeholderSlot(d *Document, assistant, you *Message, order int) (at int, before, after string) {
	nl := d.Newline
	earlier, later := -1, -1
	for i, r := range you.ToolResults {
		o := toolUseOrder(assistant, r.ID)
		if o < 0 {
			continue
		}
		if o < order {
			earlier = i
		} else if later < 0 {
			later = i
		}
	}
	switch {
	case earlier >= 0:
		at = you.ToolResults[earlier].Span.End
		before = nl
	case later >= 0:
		// Before the first result for a later tool use; a blank line must
		// precede the placeholder (the line above may be the marker).
		at = you.ToolResults[later].Span.Start
		if prev := d.Lines.LineOf(at) - 1; prev >= 0 && !isBlank(strings.TrimSuffix(d.Slice(d.Lines.LineStart(prev), at), "\n")) {
			before = nl
		}
		return at, before, nl
	default:
		at = d.lineAfter(you.MarkerSpan.End)
		before = nl
		if at < you.Span.End && !isBlank(d.Slice(at, min(you.Span.End, d.Lines.lineEnd(d.Lines.LineOf(at))))) {
			after = nl // keep a blank line before the user's text
		}
	}
	if at > 0 && d.Slice(at-1, at) != "\n" {
		before = nl + before
	}
	return at, before, after
}

// lineAfter is the offset just past the line ending at end.
func (d *Document) lineAfter(end int) int { return end + lineAfter(d.Slice(end, end+2), 0) }

// HeaderGap is what the document writes between a tool header and its
// fence (SPEC §1 "Compact headers"): "" when its last tool header with a
// fence is directly followed by it, or when it has none (Flemma 0.13's
// default); a blank line (the document's line ending) when that header has
// blank lines before its fence.
func (d *Document) HeaderGap() string {
	for i := d.MessageCount() - 1; i >= 0; i-- {
		m := d.Message(i)
		var header Span
		var fence *Fence
		for j := len(m.ToolUses) - 1; j >= 0; j-- {
			if u := m.ToolUses[j]; u.Fence != nil {
				header, fence = u.HeaderSpan, u.Fence
				break
			}
		}
		for j := len(m.ToolResults) - 1; j >= 0; j-- {
			if r := m.ToolResults[j]; r.Fence != nil {
				if r.HeaderSpan.Start > header.Start {
					header, fence = r.HeaderSpan, r.Fence
				}
				break
			}
		}
		if fence == nil {
			continue
		}
		if fence.Span.Start == d.lineAfter(header.End) {
			return ""
		}
		return d.Newline
	}
	return ""
}

// placeholderText is one placeholder block ending with a line ending; gap
// goes between the header line and the fence (HeaderGap).
func placeholderText(req PlaceholderRequest, dialect Dialect, nl, gap string) string {
	if req.Result != nil {
		return resultBlock(req.ID, "", req.Result.Content, req.Result.IsError, nl, gap) + nl
	}
	st := req.Status
	if st == StatusDone {
		st = StatusPending
	}
	var extra strings.Builder
	for _, kv := range req.Extra {
		extra.WriteString(" " + kv.Key + "=" + kv.Value)
	}
	header := "**Tool Result:** `" + req.ID + "`"
	switch dialect {
	case DialectSuffix:
		if extra.Len() == 0 {
			return header + " (" + string(st) + ")" + nl + gap + "```" + nl + "```" + nl
		}
		return header + " (status=" + string(st) + extra.String() + ")" + nl + gap + "```" + nl + "```" + nl
	case DialectLegacy:
		return header + nl + gap + "```flemma:" + string(st) + nl + "```" + nl
	}
	return header + nl + gap + "```flemma:tool status=" + string(st) + extra.String() + nl + "```" + nl
}

// SetStatus rewrites the status word of the first result with that ID, in
// the dialect it is written in (a legacy `flemma:pending` becomes
// `flemma:approved`). A fence-dialect info string without a status token
// gets one. Setting the status a result already has spelled canonically
// gives no edits.
func SetStatus(d *Document, id string, st Status) ([]TextEdit, error) {
	r := d.ToolResult(id)
	switch {
	case r == nil:
		return nil, fmt.Errorf("no tool result with ID %s", id)
	case st == StatusDone:
		return nil, fmt.Errorf("a finished result has no status; use ReplaceWithResult")
	case !r.IsPlaceholder():
		// Also an `(error)` result: its word is a status, but rewriting it
		// would turn a finished result back into a placeholder.
		return nil, fmt.Errorf("tool result %s is finished; it has no status to set", id)
	case r.StatusSpan() != (Span{}):
		word := r.StatusSpan()
		if d.Slice(word.Start, word.End) == string(st) {
			return nil, nil
		}
		return []TextEdit{{Span: word, NewText: string(st)}}, nil
	case r.Dialect == DialectFence && r.Fence != nil:
		line := r.Fence.OpenerSpan()
		opener := d.Slice(line.Start, line.End)
		if i := emptyStatusToken(opener); i >= 0 {
			// A half-typed `status=`: fill it in rather than add a second token.
			at := line.Start + i + len("status=")
			return []TextEdit{{Span: Span{at, at}, NewText: string(st)}}, nil
		}
		at := line.Start + strings.Index(opener, "flemma:tool") + len("flemma:tool")
		return []TextEdit{{Span: Span{at, at}, NewText: " status=" + string(st)}}, nil
	case r.Dialect == DialectSuffix:
		return suffixStatusEdit(d, r, st)
	}
	return nil, fmt.Errorf("tool result %s has no status word to set", id)
}

// suffixStatusEdit sets the status of a suffix placeholder that has no
// status word, which reads as pending: `()` becomes `(approved)`,
// `(sandbox=false)` becomes `(status=approved sandbox=false)`, and an
// empty `status=` token gets its value.
func suffixStatusEdit(d *Document, r *ToolResult, st Status) ([]TextEdit, error) {
	line := d.Slice(r.HeaderSpan.Start, r.HeaderSpan.End)
	_, _, sufAt, sufLen, ok := toolResultHeader(line)
	if !ok || sufAt == 0 {
		return nil, fmt.Errorf("tool result %s: no header suffix", r.ID)
	}
	suffix := line[sufAt : sufAt+sufLen]
	at := r.HeaderSpan.Start + sufAt
	switch i := emptyStatusToken(suffix); {
	case i >= 0:
		at += i + len("status=")
		return []TextEdit{{Span: Span{at, at}, NewText: string(st)}}, nil
	case isBlank(suffix):
		return []TextEdit{{Span: Span{at, at + sufLen}, NewText: string(st)}}, nil
	}
	at += len(suffix) - len(strings.TrimLeft(suffix, " \t"))
	return []TextEdit{{Span: Span{at, at}, NewText: "status=" + string(st) + " "}}, nil
}

// emptyStatusToken is the offset of a `status=` token with no value in a
// fence opener line, or -1.
func emptyStatusToken(opener string) int {
	for i := 0; ; {
		j := strings.Index(opener[i:], "status=")
		if j < 0 {
			return -1
		}
		j += i
		end := j + len("status=")
		if (j == 0 || opener[j-1] == ' ' || opener[j-1] == '\t') && (end == len(opener) || opener[end] == ' ' || opener[end] == '\t' || opener[end] == '\r') {
			return j
		}
		i = end
	}
}

// ReplaceWithResult replaces the first result with that ID (normally a
// placeholder) by a finished result: header without suffix (or " (error)"),
// the document's header gap (HeaderGap), a fence sized to the content, the content, the fence. Line
// endings in content are converted to the document's style.
func ReplaceWithResult(d *Document, id string, content string, isError bool) ([]TextEdit, error) {
	r := d.ToolResult(id)
	if r == nil {
		return nil, fmt.Errorf("no tool result with ID %s", id)
	}
	meta := ""
	if !r.IsPlaceholder() {
		meta = r.Meta() // a finished result keeps its metadata (job=JOB)
	}
	text := resultBlock(id, meta, content, isError, d.Newline, d.HeaderGap())
	if r.Span.Len() > 0 && d.Slice(r.Span.End-1, r.Span.End) == "\n" {
		text += d.Newline
	}
	return []TextEdit{{Span: r.Span, NewText: text}}, nil
}

// resultBlock is a finished result without its last line ending: header
// (" (error)" when isError; meta, such as "job=JOB", kept in the suffix),
// gap (HeaderGap), a fence sized to the content, the content in the
// document's line endings, the fence.
func resultBlock(id, meta, content string, isError bool, nl, gap string) string {
	content = normalizeNewlines(content, nl)
	fence := FenceFor(content)
	var b strings.Builder
	b.WriteString("**Tool Result:** `" + id + "`")
	switch {
	case isError && meta != "":
		b.WriteString(" (error " + meta + ")")
	case isError:
		b.WriteString(" (error)")
	case meta != "":
		b.WriteString(" (" + meta + ")")
	}
	b.WriteString(nl + gap + fence + nl)
	if content != "" {
		b.WriteString(content)
		if strings.HasSuffix(content, "\r") {
			// The parser drops a `\r` before the last line ending; a CRLF
			// ending keeps the content's own `\r` (SPEC: content verbatim).
			b.WriteString("\r\n")
		} else {
			b.WriteString(nl)
		}
	}
	b.WriteString(fence)
	return b.String()
}

func normalizeNewlines(s, nl string) string {
	if nl == "\n" {
		return strings.ReplaceAll(s, "\r\n", "\n")
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// FenceFor is the fence for a block holding content (SPEC §1): as many
// backticks as the longest run in the content plus one, at least three.
func FenceFor(content string) string {
	longest, run := 0, 0
	for i := 0; i < len(content); i++ {
		if content[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
