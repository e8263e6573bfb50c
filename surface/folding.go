package surface

import (
	"sort"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
)

// FoldingRanges returns line folds for the frontmatter (kind imports),
// messages, tool uses, tool results and other fences (kind region), and
// thinking blocks (kind comment). Single-line constructs get no fold.
// Characters are left out: the spans are whole lines, and protocol
// v0.12.0 would drop a zero character anyway (omitempty).
func FoldingRanges(doc *chatdoc.Document, enc chatdoc.Encoding) []protocol.FoldingRange {
	folds := []protocol.FoldingRange{}
	if doc == nil {
		return folds
	}
	_ = enc             // folding is line based; lines do not depend on the encoding
	var text textWindow // the frontmatter or the message at hand
	lines := doc.Lines.Cursor()
	add := func(s chatdoc.Span, kind protocol.FoldingRangeKind) {
		s = text.trimSpanRight(s)
		if s.Len() <= 0 {
			return
		}
		start, end := lines.LineOf(s.Start), lines.LineOf(s.End)
		if end > start {
			folds = append(folds, protocol.FoldingRange{StartLine: uint32(start), EndLine: uint32(end), Kind: kind})
		}
	}
	if fm := doc.Frontmatter; fm != nil {
		text = spanWindow(doc, fm.Span)
		add(fm.Span, protocol.ImportsFoldingRange)
	}
	for _, m := range doc.Messages() {
		if m == nil {
			continue
		}
		text = spanWindow(doc, m.Span)
		add(m.Span, protocol.RegionFoldingRange)
		for _, use := range m.ToolUses {
			if use != nil {
				add(use.Span, protocol.RegionFoldingRange)
			}
		}
		for _, res := range m.ToolResults {
			if res != nil {
				add(res.Span, protocol.RegionFoldingRange)
			}
		}
		for _, f := range m.Fences {
			if f != nil && !ownedByToolBlock(m, f) {
				add(f.Span, protocol.RegionFoldingRange)
			}
		}
		for _, th := range m.Thinking() {
			if th != nil {
				add(th.Span, protocol.CommentFoldingRange)
			}
		}
	}
	// Clients expect document order; duplicates (a fence that is also a
	// tool block's whole span) are harmless but noisy, so drop them.
	sort.SliceStable(folds, func(i, j int) bool {
		if folds[i].StartLine != folds[j].StartLine {
			return folds[i].StartLine < folds[j].StartLine
		}
		return folds[i].EndLine > folds[j].EndLine
	})
	out := folds[:0]
	for _, f := range folds {
		if n := len(out); n > 0 && f.StartLine == out[n-1].StartLine && f.EndLine == out[n-1].EndLine {
			continue
		}
		out = append(out, f)
	}
	return out
}

// ownedByToolBlock reports whether f is the fence of one of m's tool uses or
// results, which already fold from their header line.
func ownedByToolBlock(m *chatdoc.Message, f *chatdoc.Fence) bool {
	for _, u := range m.ToolUses {
		if u != nil && u.Fence == f {
			return true
		}
	}
	for _, r := range m.ToolResults {
		if r != nil && r.Fence == f {
			return true
		}
	}
	return false
}
