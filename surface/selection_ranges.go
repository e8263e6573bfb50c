package surface

import (
	"sort"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
)

// SelectionRanges answers textDocument/selectionRange: for each position the
// chain word → line → fence body → block (tool use, result, fence, thinking,
// frontmatter) → message → document, innermost first, each strictly
// containing the one before.
func SelectionRanges(doc *chatdoc.Document, enc chatdoc.Encoding, positions []chatdoc.Position) []protocol.SelectionRange {
	out := make([]protocol.SelectionRange, 0, len(positions))
	for _, pos := range positions {
		if doc == nil {
			out = append(out, protocol.SelectionRange{Range: protocol.Range{Start: LSPPosition(pos), End: LSPPosition(pos)}})
			continue
		}
		off := offsetAt(doc, pos, enc)
		chain := nestedSpans(doc, off)
		if len(chain) == 0 {
			p := LSPPosition(doc.Lines.Position(off, enc))
			out = append(out, protocol.SelectionRange{Range: protocol.Range{Start: p, End: p}})
			continue
		}
		var parent *protocol.SelectionRange
		for i := len(chain) - 1; i >= 0; i-- {
			parent = &protocol.SelectionRange{Range: LSPRange(doc, chain[i], enc), Parent: parent}
		}
		out = append(out, *parent)
	}
	return out
}

// nestedSpans lists the spans around off from the smallest to the whole
// document, dropping any that do not contain their predecessor.
func nestedSpans(doc *chatdoc.Document, off int) []chatdoc.Span {
	text := windowAt(doc, off, off) // off's line, grown to the blocks around it
	var candidates []chatdoc.Span
	contains := func(s chatdoc.Span) bool { return s.Start <= off && off <= s.End }
	consider := func(s chatdoc.Span) {
		if !contains(text.clamp(s)) {
			return // trimming only shrinks the end, so it cannot contain off either
		}
		s = text.trimSpanRight(s)
		if s.Len() > 0 && contains(s) {
			candidates = append(candidates, s)
		}
	}
	if w := wordAt(&text, off); w.Len() > 0 {
		candidates = append(candidates, w)
	}
	consider(chatdoc.Span{Start: text.lineStart(off), End: text.lineEnd(off)})
	if fm := doc.Frontmatter; fm != nil {
		consider(fm.Span)
	}
	for _, m := range doc.Messages() {
		if m == nil || !contains(text.clamp(m.Span)) {
			continue
		}
		consider(m.Span)
		for _, u := range m.ToolUses {
			if u != nil {
				consider(u.Span)
				considerFence(consider, u.Fence)
			}
		}
		for _, r := range m.ToolResults {
			if r != nil {
				consider(r.Span)
				considerFence(consider, r.Fence)
			}
		}
		for _, f := range m.Fences {
			considerFence(consider, f)
		}
		for _, th := range m.Thinking() {
			if th != nil {
				consider(th.Span)
			}
		}
	}
	candidates = append(candidates, chatdoc.Span{Start: 0, End: text.n})
	sort.SliceStable(candidates, func(i, j int) bool { return candidates[i].Len() < candidates[j].Len() })
	chain := candidates[:0]
	for _, s := range candidates {
		if n := len(chain); n > 0 {
			last := chain[n-1]
			if s == last || s.Start > last.Start || s.End < last.End {
				continue
			}
		}
		chain = append(chain, s)
	}
	return chain
}

func considerFence(consider func(chatdoc.Span), f *chatdoc.Fence) {
	if f != nil {
		consider(f.ContentSpan)
		consider(f.Span)
	}
}

// wordAt is the run of letters, digits and '_' around off (empty if none).
// A word never crosses a line ending, so off's line is all it reads.
func wordAt(text *textWindow, off int) chatdoc.Span {
	off = min(max(off, 0), text.n)
	base := text.lineStart(off)
	line := text.str(base, text.nextLineStart(off))
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	start := off - base
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(line[:start])
		if !isWord(r) {
			break
		}
		start -= size
	}
	end := off - base
	for end < len(line) {
		r, size := utf8.DecodeRuneInString(line[end:])
		if !isWord(r) {
			break
		}
		end += size
	}
	return chatdoc.Span{Start: base + start, End: base + end}
}
