package surface

import (
	"regexp"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
)

// CompletionTriggerCharacters are the characters after which the editor
// should ask for completion (advertise them in completionProvider).
var CompletionTriggerCharacters = []string{"@", "=", "(", "`", `"`, "'"}

// placeholderStatuses are the words a user may write into a placeholder, in
// the order they are offered: the two decisions first.
var placeholderStatuses = []struct{ word, doc string }{
	{"approved", "Run this call (the approval edit)."},
	{"rejected", "Do not run it; text in the block is the reason given to the model."},
	{"pending", "Wait for a decision."},
	{"denied", "Answer as denied by a policy."},
	{"aborted", "Answer as aborted."},
}

// roleMarkers are offered at the start of a line outside fences.
var roleMarkers = []string{"@You:", "@Assistant:", "@System:"}

// toolPresets are the policy presets that frontmatter lists accept.
var toolPresets = []string{"$default", "$readonly", "$standard"}

var (
	fenceStatusBefore  = regexp.MustCompile("^`{3,}flemma:tool\\b.*\\bstatus=([A-Za-z]*)$")
	suffixStatusBefore = regexp.MustCompile("^\\*\\*Tool Result:\\*\\*[ \\t]*`[^`]+`[ \\t]*\\((?:status=)?([A-Za-z]*)$")
	toolNameBefore     = regexp.MustCompile("^\\*\\*Tool Use:\\*\\*[ \\t]*`([^`]*)$")
	roleMarkerBefore   = regexp.MustCompile(`^@(\w*)$`)
)

// Completion offers, at pos:
//   - status words after `status=` in a `flemma:tool` fence opener or inside
//     a result header's `(…)` suffix;
//   - tool names after "**Tool Use:** `";
//   - tool names and presets inside a string in the frontmatter;
//   - role markers after `@` at the start of a line outside fences.
//
// Each item carries a text edit replacing the word being typed.
func Completion(doc *chatdoc.Document, enc chatdoc.Encoding, pos chatdoc.Position, toolNames []string) []protocol.CompletionItem {
	items := []protocol.CompletionItem{}
	if doc == nil {
		return items
	}
	off := offsetAt(doc, pos, enc)
	text := windowAt(doc, off, off) // the cursor's line; grows into the frontmatter if needed
	ls, le := text.lineStart(off), text.lineEnd(off)
	if off > le {
		return items
	}
	before := text.str(ls, off)
	wordEnd := scanWordEnd(text.str(off, le), off)
	edit := func(start, end int, newText string) *protocol.TextEdit {
		return &protocol.TextEdit{Range: LSPRange(doc, chatdoc.Span{Start: start, End: end}, enc), NewText: newText}
	}

	if m := fenceStatusBefore.FindStringSubmatchIndex(before); m != nil {
		return statusItems(items, edit(ls+m[2], wordEnd, ""))
	}
	if m := suffixStatusBefore.FindStringSubmatchIndex(before); m != nil {
		return statusItems(items, edit(ls+m[2], wordEnd, ""))
	}
	if m := toolNameBefore.FindStringSubmatchIndex(before); m != nil {
		// The name ends at its backtick, or at a lone CR, which an LSP
		// client counts as a line break (the edit must stay on its line).
		end := off + strings.IndexAny(text.str(off, le)+"`", "`\r")
		return nameItems(items, edit(ls+m[2], end, ""), toolNames, nil)
	}
	if start, end, ok := frontmatterStringAt(doc, &text, off, ls, le); ok {
		return nameItems(items, edit(start, end, ""), toolNames, toolPresets)
	}
	if m := roleMarkerBefore.FindStringSubmatchIndex(before); m != nil && !insideFenceContent(doc, off) {
		end := wordEnd
		if end < le && text.at(end) == ':' {
			end++
		}
		for i, marker := range roleMarkers {
			items = append(items, protocol.CompletionItem{
				Label: marker, Kind: protocol.CompletionItemKindKeyword,
				Detail: "start a message", SortText: string(rune('a' + i)),
				TextEdit: edit(ls, end, marker),
			})
		}
	}
	return items
}

func statusItems(items []protocol.CompletionItem, te *protocol.TextEdit) []protocol.CompletionItem {
	for i, s := range placeholderStatuses {
		e := *te
		e.NewText = s.word
		items = append(items, protocol.CompletionItem{
			Label: s.word, Kind: protocol.CompletionItemKindEnumMember,
			Detail: "placeholder status", Documentation: s.doc,
			SortText: string(rune('a' + i)), Preselect: i == 0, TextEdit: &e,
		})
	}
	return items
}

func nameItems(items []protocol.CompletionItem, te *protocol.TextEdit, toolNames, presets []string) []protocol.CompletionItem {
	for _, name := range toolNames {
		e := *te
		e.NewText = name
		items = append(items, protocol.CompletionItem{Label: name, Kind: protocol.CompletionItemKindFunction, Detail: "tool", TextEdit: &e})
	}
	for _, p := range presets {
		e := *te
		e.NewText = p
		items = append(items, protocol.CompletionItem{Label: p, Kind: protocol.CompletionItemKindConstant, Detail: "preset", TextEdit: &e})
	}
	return items
}

// scanWordEnd extends the word under the cursor to the right (letters only),
// so accepting an item replaces the rest of a half-edited word; rest is the
// text from off to the limit.
func scanWordEnd(rest string, off int) int {
	i := 0
	for i < len(rest) && (rest[i] >= 'a' && rest[i] <= 'z' || rest[i] >= 'A' && rest[i] <= 'Z') {
		i++
	}
	return off + i
}

// frontmatterStringAt reports whether off is inside a quoted string value
// (not a JSON key) within the frontmatter, and the string's content span.
func frontmatterStringAt(doc *chatdoc.Document, text *textWindow, off, ls, le int) (start, end int, ok bool) {
	fm := doc.Frontmatter
	if fm == nil {
		return 0, 0, false
	}
	span := text.clamp(fm.Span)
	if ls <= span.Start || off >= span.End || ls >= text.lineStart(text.trimSpanRight(span).End) {
		return 0, 0, false // the opener or closer line, or outside
	}
	// Here the window holds the frontmatter, through the cursor's line.
	var quote byte
	open := -1
	for i := ls; i < off; i++ {
		switch c := text.at(i); {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote, open = c, i
		}
	}
	if quote == 0 {
		return 0, 0, false
	}
	end = off
	for end < le && text.at(end) != quote {
		end++
	}
	if end < le && strings.HasPrefix(strings.TrimLeft(text.str(end+1, le), " \t"), ":") {
		return 0, 0, false // a JSON key, not a list entry
	}
	if !listEntryContext(text, span.Start, open) {
		return 0, 0, false // e.g. `recipient = "…"`, a template variable
	}
	return open + 1, end, true
}

// listEntryContext reports whether the string opening at quote is an entry
// of a tool list: after `{ [ , ( + -` (a Lua table, a method call such as
// :remove("grep"), an operator, a JSON array), or the value of a JSON list
// operator such as "$append": "bash".
func listEntryContext(text *textWindow, floor, quote int) bool {
	i := quote - 1
	for i > floor && isSpace(text.at(i)) {
		i--
	}
	if i <= floor {
		return false
	}
	switch text.at(i) {
	case '{', '[', ',', '(', '+', '-':
		return true
	case ':':
		j := i - 1
		for j > floor && isSpace(text.at(j)) {
			j--
		}
		if j <= floor || text.at(j) != '"' {
			return false
		}
		k := strings.LastIndexByte(text.str(floor, j), '"')
		return k >= 0 && strings.HasPrefix(text.str(floor+k+1, j), "$")
	}
	return false
}

// insideFenceContent reports whether off lies in the body of a fence (or
// the frontmatter), where `@Role:` lines are content, not markers. Only the
// message holding off can have such a fence: a fence never crosses a marker.
func insideFenceContent(doc *chatdoc.Document, off int) bool {
	if fm := doc.Frontmatter; fm != nil && fm.Span.Start < off && off < fm.Span.End {
		return true
	}
	m := doc.MessageAt(off)
	if m == nil {
		return false
	}
	for _, f := range m.Fences {
		if f != nil && f.ContentSpan.Start <= off && (off < f.ContentSpan.End || (!f.Closed() && off <= f.ContentSpan.End)) {
			return true
		}
	}
	return false
}
