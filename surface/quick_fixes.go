package surface

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// CodeUnansweredToolUse is the code of the server's hint on a tool use with
// no result; QuickFixes offers to insert the placeholders for it.
const CodeUnansweredToolUse = "unanswered-tool-use"

// Fix is one quick fix: a title for the code action menu and the text edits
// that make it. Preferred fixes are applied by "fix all"/auto-fix keys.
type Fix struct {
	Title     string
	Edits     []chatdoc.TextEdit
	Preferred bool
}

// QuickFixes returns the mechanical fixes for one diagnostic (from chatdoc or
// ToolDiagnostics), or none.
func QuickFixes(doc *chatdoc.Document, d chatdoc.Diagnostic, reg ToolInfo) []Fix {
	fixes := []Fix{}
	if doc == nil {
		return fixes
	}
	var fix *Fix
	switch d.Code {
	case chatdoc.CodeInlineRoleMarker:
		fix = splitInlineRoleMarker(doc, d)
	case CodeUnknownTool:
		fix = renameUnknownTool(doc, d, reg)
	case chatdoc.CodeToolUseUnclosedFence, chatdoc.CodeResultUnclosedFence, chatdoc.CodeUnclosedFence:
		fix = closeFence(doc, d)
	case chatdoc.CodeRoleMarkerInFence:
		fix = endFenceBeforeMarker(doc, d)
	case CodeUnansweredToolUse:
		fix = insertMissingPlaceholders(doc, d)
	case CodeOldToolName:
		fix = newToolNames(doc)
	}
	if fix != nil && len(fix.Edits) > 0 {
		fixes = append(fixes, *fix)
	}
	return fixes
}

var inlineRoleMarker = regexp.MustCompile(`^@(\w+):[ \t]*`)

// inlineMarkerSpan is the `@Role:` at the start of the line holding off
// (empty if the line does not start with one). Hand-written rather than
// inlineRoleMarker because semantic tokens call it for every message.
func inlineMarkerSpan(text *textWindow, off int) chatdoc.Span {
	// lineStart alone may leave the window ending at off (a line start):
	// load off's whole line before reading it.
	text.need(off, off, true)
	start := text.lineStart(off)
	if start >= text.n {
		return chatdoc.Span{}
	}
	line := text.s[start-text.base:]
	i := 1
	if line[0] != '@' {
		return chatdoc.Span{}
	}
	for i < len(line) && isASCIIWordByte(line[i]) {
		i++
	}
	if i == 1 || i >= len(line) || line[i] != ':' {
		return chatdoc.Span{}
	}
	return chatdoc.Span{Start: start, End: start + i + 1}
}

func isASCIIWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// splitInlineRoleMarker turns `@You: text` into `@You:` + newline + `text`,
// replacing the spaces after the colon with the document's line ending.
func splitInlineRoleMarker(doc *chatdoc.Document, d chatdoc.Diagnostic) *Fix {
	text := windowAt(doc, d.Span.Start, d.Span.Start)
	start := text.lineStart(text.clamp(d.Span).Start)
	line := text.str(start, text.lineEnd(start))
	m := inlineRoleMarker.FindStringSubmatchIndex(line)
	if m == nil || m[1] == len(line) {
		return nil
	}
	colon := start + m[3] + 1
	return &Fix{
		Title:     fmt.Sprintf("Put `@%s:` on its own line", line[m[2]:m[3]]),
		Edits:     []chatdoc.TextEdit{{Span: chatdoc.Span{Start: colon, End: start + m[1]}, NewText: doc.Newline}},
		Preferred: true,
	}
}

// renameUnknownTool replaces the tool name with the registry's suggestion.
func renameUnknownTool(doc *chatdoc.Document, d chatdoc.Diagnostic, reg ToolInfo) *Fix {
	use := toolUseAt(doc, d)
	if use == nil || reg == nil {
		return nil
	}
	suggestion := reg.Suggest(use.Name)
	if suggestion == "" || suggestion == use.Name || strings.ContainsAny(suggestion, "`\r\n") {
		return nil
	}
	return &Fix{
		Title:     fmt.Sprintf("Change tool to `%s`", suggestion),
		Edits:     []chatdoc.TextEdit{{Span: use.NameSpan(), NewText: suggestion}},
		Preferred: true,
	}
}

// newToolNames writes every `server:tool` of the document as Flemma 0.12
// does, `server.tool` (the same tools: chatls reads both).
func newToolNames(doc *chatdoc.Document) *Fix {
	var edits []chatdoc.TextEdit
	for _, use := range doc.ToolUses() {
		if use != nil && strings.Contains(use.Name, ":") {
			edits = append(edits, chatdoc.TextEdit{Span: use.NameSpan(), NewText: strings.ReplaceAll(use.Name, ":", ".")})
		}
	}
	return &Fix{Title: "Use Flemma 0.12 tool names", Edits: edits}
}

// toolUseAt finds the tool use a diagnostic is about: by its name or header
// span first (IDs may be duplicated), then by ID.
func toolUseAt(doc *chatdoc.Document, d chatdoc.Diagnostic) *chatdoc.ToolUse {
	for _, use := range doc.ToolUses() {
		if use != nil && (use.NameSpan() == d.Span || (use.Span.Start <= d.Span.Start && d.Span.End <= use.Span.End && d.Span.Start < use.HeaderSpan.End)) {
			return use
		}
	}
	for _, use := range doc.ToolUses() {
		if use != nil && d.ToolID != "" && use.ID == d.ToolID {
			return use
		}
	}
	return nil
}

// closeFence inserts a closer as long as the opener after the fence's last
// non-blank line, stopping before a later role marker or tool header so the
// following blocks keep their meaning.
func closeFence(doc *chatdoc.Document, d chatdoc.Diagnostic) *Fix {
	f := unclosedFenceAt(doc, d)
	if f == nil {
		f = unclosedFrontmatter(doc, d)
	}
	if f == nil {
		return nil
	}
	text := spanWindow(doc, chatdoc.Span{Start: f.OpenerSpan().Start, End: f.Span.End})
	opener := text.clamp(f.OpenerSpan())
	limit := text.clamp(f.Span).End
	for off := text.nextLineStart(opener.End); off < limit; off = text.nextLineStart(off) {
		line := text.str(off, text.lineEnd(off))
		if roleMarkerLine.MatchString(line) || strings.HasPrefix(line, "**Tool Use:**") || strings.HasPrefix(line, "**Tool Result:**") {
			limit = off
			break
		}
	}
	insertAt := max(text.trimSpanRight(chatdoc.Span{Start: opener.End, End: limit}).End, opener.End)
	ticks := strings.Repeat("`", max(f.Ticks, 3))
	return &Fix{
		Title:     "Close the code fence",
		Edits:     []chatdoc.TextEdit{{Span: chatdoc.Span{Start: insertAt, End: insertAt}, NewText: doc.Newline + ticks}},
		Preferred: true,
	}
}

var roleMarkerLine = regexp.MustCompile(`^@\w+:\s*$`)

// unclosedFrontmatter is the fence an unclosed frontmatter opener on line 1
// starts: it belongs to no message (text before the first role marker is
// not parsed as one), so it is not among the messages' fences. It runs to
// the end of the document; closeFence stops at the first role marker.
func unclosedFrontmatter(doc *chatdoc.Document, d chatdoc.Diagnostic) *chatdoc.Fence {
	if d.Span.Start != 0 || doc.Frontmatter != nil {
		return nil
	}
	text := windowAt(doc, 0, 0)
	opener := chatdoc.Span{Start: 0, End: text.lineEnd(0)}
	line := text.str(opener.Start, opener.End)
	ticks := len(line) - len(strings.TrimLeft(line, "`"))
	if ticks < 3 {
		return nil
	}
	return chatdoc.OpenFence(opener, ticks, doc.Len())
}

// endFenceBeforeMarker ends the fence holding a role marker just above the
// marker's line. Not preferred: the marker may be meant as content (a .chat
// example inside a fence).
func endFenceBeforeMarker(doc *chatdoc.Document, d chatdoc.Diagnostic) *Fix {
	var fence *chatdoc.Fence
	for _, f := range allFences(doc) {
		if f.OpenerSpan().End <= d.Span.Start && d.Span.Start < f.Span.End {
			if fence == nil || f.OpenerSpan().Start > fence.OpenerSpan().Start {
				fence = f
			}
		}
	}
	if fence == nil {
		return nil
	}
	text := spanWindow(doc, chatdoc.Span{Start: fence.OpenerSpan().Start, End: d.Span.End})
	marker := text.lineStart(d.Span.Start)
	insertAt := max(text.trimSpanRight(chatdoc.Span{Start: fence.OpenerSpan().End, End: marker}).End, fence.OpenerSpan().End)
	return &Fix{
		Title: "End the code fence before this role marker",
		Edits: []chatdoc.TextEdit{{Span: chatdoc.Span{Start: insertAt, End: insertAt}, NewText: doc.Newline + strings.Repeat("`", max(fence.Ticks, 3))}},
	}
}

// unclosedFenceAt finds the unclosed fence whose opener the diagnostic marks
// (or that contains it).
func unclosedFenceAt(doc *chatdoc.Document, d chatdoc.Diagnostic) *chatdoc.Fence {
	var best *chatdoc.Fence
	for _, f := range allFences(doc) {
		if f.Closed() {
			continue
		}
		if f.OpenerSpan().Start <= d.Span.Start && d.Span.Start <= f.Span.End {
			if best == nil || f.OpenerSpan().Start > best.OpenerSpan().Start {
				best = f
			}
		}
	}
	return best
}

// allFences lists every fence of the messages in document order. The parser
// files tool-use and result fences in Message.Fences too; the extra loops
// only guard against a snapshot that does not.
func allFences(doc *chatdoc.Document) []*chatdoc.Fence {
	var fences []*chatdoc.Fence
	seen := map[*chatdoc.Fence]bool{nil: true}
	add := func(f *chatdoc.Fence) {
		if !seen[f] {
			seen[f] = true
			fences = append(fences, f)
		}
	}
	for _, m := range doc.Messages() {
		if m == nil {
			continue
		}
		for _, f := range m.Fences {
			add(f)
		}
		for _, u := range m.ToolUses {
			if u != nil {
				add(u.Fence)
			}
		}
		for _, r := range m.ToolResults {
			if r != nil {
				add(r.Fence)
			}
		}
	}
	return fences
}
