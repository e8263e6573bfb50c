package surface

import (
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/clip"
)

// symbolNameRunes bounds how much of a message's first line the outline shows.
const symbolNameRunes = 60

// DocumentSymbols returns the outline: the frontmatter, then each message
// named by its role and first line, with its tool calls (name, status, ID)
// and tool results (ID, status) as children. statusOf may give the server's
// live status for a tool ID (e.g. "running"); nil or "" falls back to what
// the document says.
func DocumentSymbols(doc *chatdoc.Document, enc chatdoc.Encoding, statusOf func(toolID string) string) []protocol.DocumentSymbol {
	symbols := []protocol.DocumentSymbol{}
	if doc == nil {
		return symbols
	}
	cur := doc.Lines.Cursor()
	if fm := doc.Frontmatter; fm != nil {
		text := spanWindow(doc, fm.Span)
		symbols = append(symbols, symbol(cur, enc, "frontmatter", displayText(fm.Language), protocol.SymbolKindPackage,
			text.trimSpanRight(fm.Span), chatdoc.Span{Start: fm.Span.Start, End: text.lineEnd(fm.Span.Start)}))
	}
	for _, m := range doc.Messages() {
		if m == nil {
			continue
		}
		text := spanWindow(doc, m.Span)
		sym := symbol(cur, enc, messageSymbolName(&text, m), "", protocol.SymbolKindNamespace, text.trimSpanRight(m.Span), m.MarkerSpan)
		for _, use := range m.ToolUses {
			if use == nil {
				continue
			}
			status := ""
			if statusOf != nil {
				status = statusOf(use.ID)
			}
			if status == "" {
				status = documentStatus(use, doc.ToolResult(use.ID)) // the first result counts
			}
			sym.Children = append(sym.Children, symbol(cur, enc, displayText(use.Name), displayText(status+" · "+use.ID),
				protocol.SymbolKindFunction, text.trimSpanRight(use.Span), use.NameSpan()))
		}
		for _, res := range m.ToolResults {
			if res == nil {
				continue
			}
			sym.Children = append(sym.Children, symbol(cur, enc, displayText("result "+res.ID), resultStatus(res),
				protocol.SymbolKindEvent, text.trimSpanRight(res.Span), res.IDSpan()))
		}
		symbols = append(symbols, sym)
	}
	return symbols
}

// symbol builds one outline entry whose range always holds its selection
// (LSP requires it; VS Code drops the whole outline otherwise): a trimmed
// range may end before the selection when the line ends in white space
// ("@You: " at the end of the document).
func symbol(cur *chatdoc.LineCursor, enc chatdoc.Encoding, name, detail string, kind protocol.SymbolKind, rng, sel chatdoc.Span) protocol.DocumentSymbol {
	rng.Start = min(rng.Start, sel.Start)
	rng.End = max(rng.End, sel.End)
	return protocol.DocumentSymbol{Name: name, Detail: detail, Kind: kind,
		Range: lspRangeVia(cur, rng, enc), SelectionRange: lspRangeVia(cur, sel, enc)}
}

// documentStatus is a tool use's state as far as the text tells.
func documentStatus(use *chatdoc.ToolUse, res *chatdoc.ToolResult) string {
	switch {
	case res != nil:
		return resultStatus(res)
	case !use.Valid():
		return "invalid input"
	default:
		return "unanswered"
	}
}

func resultStatus(res *chatdoc.ToolResult) string {
	if res.Status == chatdoc.StatusDone {
		return "done"
	}
	return string(res.Status)
}

// messageSymbolName is "Role: first line…": the first line of prose,
// skipping thinking, fences and tool blocks; a message with none is
// summarised by its calls ("Assistant: calls bash, read") or results.
func messageSymbolName(text *textWindow, m *chatdoc.Message) string {
	name := m.Role
	if name == "" {
		name = "message"
	}
	marker := text.clamp(m.MarkerSpan)
	if inline := inlineMarkerSpan(text, marker.Start); inline.Len() > 0 {
		if rest := strings.TrimSpace(text.str(inline.End, max(marker.End, inline.End))); rest != "" {
			return displayText(name + ": " + clip.Runes(rest, symbolNameRunes)) // pre-0.6 `@You: text`
		}
	}
	if line := firstProseLine(text, m); line != "" {
		return displayText(name + ": " + clip.Runes(line, symbolNameRunes))
	}
	var parts []string
	for _, u := range m.ToolUses {
		if u != nil {
			parts = append(parts, u.Name)
		}
	}
	summary := "calls "
	if len(parts) == 0 {
		summary = "results for "
		for _, r := range m.ToolResults {
			if r != nil {
				parts = append(parts, r.ID)
			}
		}
	}
	if len(parts) == 0 {
		return displayText(name)
	}
	return displayText(name + ": " + clip.Runes(summary+strings.Join(parts, ", "), symbolNameRunes))
}

// firstProseLine walks the message's lines once, jumping over its blocks.
func firstProseLine(text *textWindow, m *chatdoc.Message) string {
	var blocks []chatdoc.Span
	for _, th := range m.Thinking() {
		if th != nil {
			blocks = append(blocks, th.Span)
		}
	}
	for _, f := range m.Fences {
		if f != nil {
			blocks = append(blocks, f.Span)
		}
	}
	for _, u := range m.ToolUses {
		if u != nil {
			blocks = append(blocks, u.Span)
		}
	}
	for _, r := range m.ToolResults {
		if r != nil {
			blocks = append(blocks, r.Span)
		}
	}
	slices.SortFunc(blocks, func(a, b chatdoc.Span) int { return a.Start - b.Start })
	span := text.clamp(m.Span)
	next := 0
	for off := text.nextLineStart(text.clamp(m.MarkerSpan).End); off < span.End; {
		for next < len(blocks) && blocks[next].End <= off {
			next++
		}
		if next < len(blocks) && blocks[next].Start <= off {
			off = max(text.nextLineStart(max(blocks[next].End-1, off)), off+1)
			continue
		}
		if line := strings.TrimSpace(text.str(off, min(text.lineEnd(off), span.End))); line != "" {
			return line
		}
		off = max(text.nextLineStart(off), off+1)
	}
	return ""
}

// displayText makes any document text safe to show: valid UTF-8, never
// empty (clients reject empty symbol names).
func displayText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.TrimSpace(s) == "" {
		return "?"
	}
	return s
}
