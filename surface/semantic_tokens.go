package surface

import (
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
)

// Token types, indices into SemanticTokensLegend().TokenTypes. Standard LSP
// names so editors without a .chat grammar (Helix, eglot) colour them with
// their theme's usual faces.
const (
	tokenRoleMarker = iota // keyword: `@You:`
	tokenToolHeader        // macro: `**Tool Use:**`, `**Tool Result:**`
	tokenToolName          // function: `bash`
	tokenToolID            // variable: `toolu_01` (declaration in a tool use)
	tokenStatus            // enumMember: `pending` in a placeholder
	tokenThinking          // comment: thinking blocks and abort markers
	tokenFence             // decorator: fence opener and closer lines
	tokenFileRef           // string: `@./path`
)

// Token modifiers, bit positions in SemanticTokensLegend().TokenModifiers.
const (
	modDeclaration = 1 << iota // the ID in a tool use (results refer to it)
	modDeprecated              // a pre-0.6 placeholder (`flemma:pending`) or inline role marker
)

// SemanticTokensLegend is the legend to advertise in initialize.
func SemanticTokensLegend() protocol.SemanticTokensLegend {
	return protocol.SemanticTokensLegend{
		TokenTypes: []protocol.SemanticTokenTypes{
			protocol.SemanticTokenKeyword,
			protocol.SemanticTokenMacro,
			protocol.SemanticTokenFunction,
			protocol.SemanticTokenVariable,
			protocol.SemanticTokenEnumMember,
			protocol.SemanticTokenComment,
			"decorator", // LSP 3.17; protocol v0.12.0 has no constant for it
			protocol.SemanticTokenString,
		},
		TokenModifiers: []protocol.SemanticTokenModifiers{
			protocol.SemanticTokenModifierDeclaration,
			protocol.SemanticTokenModifierDeprecated,
		},
	}
}

// semanticToken is one token as a byte span before encoding.
type semanticToken struct {
	span      chatdoc.Span
	kind      uint32
	modifiers uint32
}

// SemanticTokens returns the whole document's tokens in the LSP relative
// encoding (5 integers per token). Tokens never span lines: multi-line
// constructs (thinking) get one token per line, since clients need not
// support multiline tokens. A TokenCache gives the same result faster on a
// document that was edited since its last call.
func SemanticTokens(doc *chatdoc.Document, enc chatdoc.Encoding) []uint32 {
	return (*TokenCache)(nil).Tokens(doc, enc)
}

// frontmatterTokens marks the frontmatter's opener and closer lines.
func frontmatterTokens(doc *chatdoc.Document) []semanticToken {
	fm := doc.Frontmatter
	if fm == nil {
		return nil
	}
	text := spanWindow(doc, fm.Span)
	s := text.clamp(fm.Span)
	toks := []semanticToken{{span: chatdoc.Span{Start: s.Start, End: text.lineEnd(s.Start)}, kind: tokenFence}}
	if closer := text.trimSpanRight(s); closer.End > s.Start {
		if last := text.lineStart(closer.End); last > s.Start {
			toks = append(toks, semanticToken{span: chatdoc.Span{Start: last, End: closer.End}, kind: tokenFence})
		}
	}
	return normalizeTokens(&text, toks, &tokenScratch{})
}

// tokenScratch holds buffers reused from message to message, so a full
// computation does not allocate per message. Results are valid until the
// next call that uses the same scratch.
type tokenScratch struct{ toks, flat, out []semanticToken }

// messageTokens lists one message's tokens in document order, without
// overlaps; text is a window on the message (see messageWindow).
func messageTokens(text *textWindow, m *chatdoc.Message, scratch *tokenScratch) []semanticToken {
	toks := scratch.toks[:0]
	add := func(s chatdoc.Span, kind, mods uint32) {
		if s.End > s.Start {
			toks = append(toks, semanticToken{span: s, kind: kind, modifiers: mods})
		}
	}
	if inline := inlineMarkerSpan(text, m.MarkerSpan.Start); inline.Len() > 0 && inline.End < text.trimSpanRight(m.MarkerSpan).End {
		add(inline, tokenRoleMarker, modDeprecated) // pre-0.6 `@You: text`
	} else {
		add(m.MarkerSpan, tokenRoleMarker, 0)
	}
	for _, f := range m.Fences {
		if f != nil {
			add(f.OpenerSpan(), tokenFence, 0)
			if f.Closed() {
				add(f.CloserSpan(), tokenFence, 0)
			}
		}
	}
	for _, th := range m.Thinking() {
		if th != nil {
			add(th.Span, tokenThinking, 0)
		}
	}
	if a := m.Abort(); a != nil {
		add(a.Span, tokenThinking, 0)
	}
	for _, ref := range m.FileRefs() {
		if ref != nil {
			add(ref.Span, tokenFileRef, 0)
		}
	}
	for _, use := range m.ToolUses {
		if use != nil {
			add(headerLabel(text, use.HeaderSpan, "**Tool Use:**"), tokenToolHeader, 0)
			add(use.NameSpan(), tokenToolName, 0)
			add(use.IDSpan(), tokenToolID, modDeclaration)
		}
	}
	for _, res := range m.ToolResults {
		if res == nil {
			continue
		}
		add(headerLabel(text, res.HeaderSpan, "**Tool Result:**"), tokenToolHeader, 0)
		add(res.IDSpan(), tokenToolID, 0)
		var mods uint32
		if res.Dialect == chatdoc.DialectLegacy {
			mods = modDeprecated
		}
		add(res.StatusSpan(), tokenStatus, mods)
	}
	// Tool blocks' fences are in m.Fences already (chatdoc files every fence
	// of a message there); normalizeTokens drops any repeat.
	scratch.toks = toks
	return normalizeTokens(text, toks, scratch)
}

// headerLabel is the span of a bold label at the start of a header line.
func headerLabel(text *textWindow, header chatdoc.Span, label string) chatdoc.Span {
	h := text.clamp(header)
	if strings.HasPrefix(text.str(h.Start, h.End), label) {
		return chatdoc.Span{Start: h.Start, End: h.Start + len(label)}
	}
	return chatdoc.Span{}
}

// normalizeTokens sorts tokens, carves nested ones out of their container
// (the status word inside a fence opener line), drops partial overlaps (the
// AST's lists are independent), and splits multi-line tokens into per-line
// pieces without line endings.
func normalizeTokens(text *textWindow, toks []semanticToken, scratch *tokenScratch) []semanticToken {
	for i := range toks {
		toks[i].span = text.clamp(toks[i].span)
	}
	slices.SortStableFunc(toks, func(a, b semanticToken) int {
		if a.span.Start != b.span.Start {
			return a.span.Start - b.span.Start
		}
		return b.span.End - a.span.End // containers first
	})
	flat := scratch.flat[:0]
	for _, t := range toks {
		if t.span.Len() <= 0 {
			continue
		}
		n := len(flat)
		if n == 0 || flat[n-1].span.End <= t.span.Start {
			flat = append(flat, t)
			continue
		}
		outer := flat[n-1]
		if t.span.Start < outer.span.Start || t.span.End > outer.span.End {
			continue // partial overlap: keep the first
		}
		flat = flat[:n-1]
		if head := (chatdoc.Span{Start: outer.span.Start, End: t.span.Start}); head.Len() > 0 {
			flat = append(flat, semanticToken{span: head, kind: outer.kind, modifiers: outer.modifiers})
		}
		flat = append(flat, t)
		if tail := (chatdoc.Span{Start: t.span.End, End: outer.span.End}); tail.Len() > 0 {
			flat = append(flat, semanticToken{span: tail, kind: outer.kind, modifiers: outer.modifiers})
		}
	}
	scratch.flat = flat
	out := scratch.out[:0]
	for _, t := range flat {
		s := t.span
		for start := s.Start; start < s.End; {
			end := min(text.lineEnd(start), s.End)
			if end > start {
				out = append(out, semanticToken{span: chatdoc.Span{Start: start, End: end}, kind: t.kind, modifiers: t.modifiers})
			}
			start = text.nextLineStart(start)
		}
	}
	scratch.out = out
	return out
}

// encodeTokens appends toks in the relative encoding, continuing after a
// token at (prevLine, prevChar), and returns the new data and the position
// of the last token. Positions come from the mapper; a token's length is its
// end character minus its start character on the same line.
func encodeTokens(data []uint32, lines *chatdoc.LineCursor, enc chatdoc.Encoding, toks []semanticToken, prevLine, prevChar int) ([]uint32, int, int) {
	for _, t := range toks {
		start := lines.Position(t.span.Start, enc)
		end := lines.Position(t.span.End, enc)
		if end.Line != start.Line || end.Character <= start.Character {
			continue
		}
		deltaLine := start.Line - prevLine
		deltaChar := start.Character
		if deltaLine == 0 {
			deltaChar -= prevChar
		}
		if deltaLine < 0 || deltaChar < 0 {
			continue
		}
		data = append(data, uint32(deltaLine), uint32(deltaChar), uint32(end.Character-start.Character), t.kind, t.modifiers)
		prevLine, prevChar = start.Line, start.Character
	}
	return data, prevLine, prevChar
}

// SemanticTokensDelta returns one edit turning prev into cur: the tokens
// between their common prefix and common suffix, both cut at whole tokens so
// the client never sees half a token. Identical arrays give no edits.
func SemanticTokensDelta(prev, cur []uint32) []protocol.SemanticTokensEdit {
	edits := []protocol.SemanticTokensEdit{}
	limit := min(len(prev), len(cur))
	prefix := 0
	for prefix < limit && prev[prefix] == cur[prefix] {
		prefix++
	}
	if prefix == len(prev) && prefix == len(cur) {
		return edits
	}
	prefix -= prefix % 5
	suffix := 0
	for suffix < limit-prefix && prev[len(prev)-1-suffix] == cur[len(cur)-1-suffix] {
		suffix++
	}
	suffix -= suffix % 5
	if len(prev)%5 != 0 || len(cur)%5 != 0 {
		suffix = 0 // not token-aligned input: keep the edit exact anyway
	}
	data := cur[prefix : len(cur)-suffix]
	edits = append(edits, protocol.SemanticTokensEdit{
		Start:       uint32(prefix),
		DeleteCount: uint32(len(prev) - suffix - prefix),
		Data:        append([]uint32{}, data...),
	})
	return edits
}
