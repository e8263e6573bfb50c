package chatdoc

import (
	"strings"
)

// bodyScanner turns the lines after the frontmatter into messages in one pass.
// Its state between lines is small (an open fence, a tool header waiting for
// its fence, an open thinking block), and every role marker outside a fence
// resets it, which is what lets Apply restart at a message boundary.
type bodyScanner struct {
	// text is the document's bytes [base, base+len(text)): all of it for
	// Parse, a window that grows on demand for Apply (see more). Offsets
	// in spans are absolute.
	text       string
	base       int
	src        *pieceText // where the window grows from; nil when text is all
	docLen     int
	firstIndex int // Document.Messages index of the first message produced
	msgs       []*Message
	cur        *Message // nil before the first marker

	fence       *Fence
	fenceUse    *ToolUse
	fenceResult *ToolResult
	waitUse     *ToolUse    // header seen, fence not yet
	waitResult  *ToolResult // header seen, fence not yet
	resultInfo  resultStatus
	thinking    *Thinking
	pre         []Diagnostic // findings before the first marker
	fenceMarker Span         // the first role-marker line inside the open plain fence
	batch       nodeBatch    // where a ParseOnce takes its nodes from
}

// newBodyScanner scans the whole text; batched takes the nodes from a few
// large arrays (ParseOnce).
func newBodyScanner(text string, batched bool) *bodyScanner {
	return &bodyScanner{text: text, docLen: len(text), batch: nodeBatch{on: batched}}
}

// newWindowScanner scans t from offset from, starting with the window
// [from, until) so that reparsing one message copies about that much text.
func newWindowScanner(t *pieceText, from, until, firstIndex int) *bodyScanner {
	until = max(from, min(until, t.n))
	return &bodyScanner{text: t.copyOf(from, until), base: from, src: t, docLen: t.n, firstIndex: firstIndex}
}

// more doubles the window (amortized linear); false at the document end.
func (s *bodyScanner) more() bool {
	end := s.base + len(s.text)
	if s.src == nil || end >= s.docLen {
		return false
	}
	s.text = s.src.copyOf(s.base, min(s.docLen, end+max(len(s.text), windowSlack)))
	return true
}

// at returns the text of an absolute span inside the window.
func (s *bodyScanner) at(sp Span) string { return s.text[sp.Start-s.base : sp.End-s.base] }

// scan reads lines from offset from. Before starting a message at a role
// marker it asks stop (if non-nil); when stop says yes the scan ends there and
// returns that offset. Otherwise it runs to the end of the text.
func (s *bodyScanner) scan(from int, stop func(markerStart int) bool) ([]*Message, int) {
	pos := from - s.base // in the window
	for {
		text := s.text
		if pos >= len(text) {
			if s.more() {
				continue
			}
			break
		}
		start := pos
		end, next := len(text), len(text)
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 && s.more() {
			continue // a whole line, with its line ending, must be in the window
		}
		if nl >= 0 {
			end, next = pos+nl, pos+nl+1
		}
		if end > start && text[end-1] == '\r' {
			end--
		}
		line := text[start:end]
		pos = next
		start, end, next = start+s.base, end+s.base, next+s.base

		if s.fence != nil {
			if len(line) > 0 && line[0] == '`' && fenceCloser(line, s.fence.Ticks) {
				s.closeFence(start, end, next)
				continue
			}
			if s.fenceUse == nil {
				if len(line) > 0 && line[0] == '@' && s.fenceResult == nil && s.fenceMarker == (Span{}) {
					if _, _, ok := roleMarker(line); ok {
						s.fenceMarker = Span{start, end}
					}
				}
				continue
			}
			if !endsToolUseFence(line) {
				continue
			}
			// A tool-use fence left open: JSON can't hold this line, so the
			// fence ends here unclosed and the line is read normally (SPEC §1:
			// parsing resumes at the next tool header or role marker).
			s.fence.Span.End, s.fence.ContentSpan.End = start, start
			s.finishFence()
		}
		if s.thinking != nil {
			if len(line) > 0 && line[0] == '<' && isThinkingClose(line) {
				s.thinking.Span.End = next
				s.thinking = nil
				continue
			}
			if len(line) == 0 || line[0] != '@' {
				continue
			}
			if _, _, ok := roleMarker(line); !ok {
				continue
			}
			s.endThinking(start)
		}
		if len(line) == 0 {
			continue
		}
		c := line[0]
		if s.waitUse != nil || s.waitResult != nil {
			if c == '`' {
				if ticks, info, ok := fenceOpener(line); ok {
					s.openFence(ticks, info, start, end, next)
					continue
				}
			}
			if isBlank(line) {
				continue
			}
			s.endWaitWithoutFence()
		}
		switch c {
		case '@':
			if role, inline, ok := roleMarker(line); ok {
				if stop != nil && stop(start) {
					s.endMessage(start)
					return s.msgs, start
				}
				s.startMessage(role, inline, start, end)
				continue
			}
			s.fileRefs(line, start)
		case '`':
			if ticks, info, ok := fenceOpener(line); ok {
				if s.cur == nil {
					// Before the first role marker nothing is read, fences
					// neither (as Flemma): an unclosed one can't hide messages.
					s.preambleFence(line, ticks, start, end)
					continue
				}
				s.openFence(ticks, info, start, end, next)
			}
		case '*':
			s.toolHeader(line, start, end)
		case '<':
			s.angleLine(line, start, next)
		default:
			s.fileRefs(line, start)
		}
	}
	s.endMessage(s.docLen)
	return s.msgs, s.docLen
}

// addDiag files a finding with the current message, or before the first
// marker with the scanner (only an unclosed fence can happen there).
func (s *bodyScanner) addDiag(d Diagnostic) {
	if s.cur != nil {
		x := s.cur.more()
		x.diags = append(x.diags, d)
		return
	}
	s.pre = append(s.pre, d)
}

// endsToolUseFence reports whether a line inside an open tool-use fence ends
// it: a role marker or a tool-use header, neither of which JSON can contain.
func endsToolUseFence(line string) bool {
	if len(line) == 0 {
		return false
	}
	switch line[0] {
	case '@':
		_, _, ok := roleMarker(line)
		return ok
	case '*':
		_, _, _, _, ok := toolUseHeader(line)
		return ok
	}
	return false
}

func (s *bodyScanner) startMessage(role, inline string, start, end int) {
	s.endMessage(start)
	s.cur = newNode(&s.batch, &s.batch.msgs)
	*s.cur = Message{Role: role, Span: Span{start, s.docLen}, MarkerSpan: Span{start, end}}
	if inline != "" {
		s.addDiag(diag(Span{start, end}, SeverityWarning, CodeInlineRoleMarker, "",
			"Role marker `@%s:` must be alone on its line (pre-0.6 form); move the text to the next line", role))
		s.fileRefs(inline, end-len(inline))
	}
}

// endMessage closes whatever is open and files the current message.
func (s *bodyScanner) endMessage(end int) {
	if s.fence != nil {
		s.fence.Span.End, s.fence.ContentSpan.End = end, end
		s.finishFence()
	}
	if s.waitUse != nil || s.waitResult != nil {
		s.endWaitWithoutFence()
	}
	if s.thinking != nil {
		s.endThinking(end)
	}
	if s.cur == nil {
		return
	}
	s.cur.Span.End = end
	s.msgs = append(s.msgs, s.cur)
	s.cur = nil
}

func (s *bodyScanner) endThinking(end int) {
	s.thinking.Span.End = end
	s.addDiag(diag(Span{s.thinking.Span.Start, s.thinking.Span.Start + len("<thinking")}, SeverityWarning,
		CodeThinkingUnclosed, "", "Thinking block is not closed with </thinking>"))
	s.thinking = nil
}

func (s *bodyScanner) messageIndex() int { return s.firstIndex + len(s.msgs) }

func (s *bodyScanner) role() string {
	if s.cur == nil {
		return ""
	}
	return s.cur.Role
}

func (s *bodyScanner) openFence(ticks int, info string, start, end, next int) {
	f := newNode(&s.batch, &s.batch.fences)
	*f = Fence{Span: Span{start, s.docLen}, Info: info, Ticks: ticks,
		ContentSpan: Span{next, s.docLen}, openerLen: int32(end - start)}
	s.fence = f
	if s.cur != nil {
		s.cur.Fences = addNode(&s.batch, &s.batch.fenceLists, s.cur.Fences, f)
	}
	switch {
	case s.waitUse != nil:
		s.fenceUse, s.waitUse = s.waitUse, nil
		s.fenceUse.Fence = f
	case s.waitResult != nil:
		s.fenceResult, s.waitResult = s.waitResult, nil
		s.fenceResult.Fence = f
	}
}

func (s *bodyScanner) closeFence(start, end, next int) {
	f := s.fence
	f.closerLen = int32(end - start)
	f.Span.End = next
	f.ContentSpan.End = start
	s.finishFence()
}

// fenceContent is the fence's content without the line ending before the closer.
func (s *bodyScanner) fenceContent(f *Fence) string {
	c := s.at(f.ContentSpan)
	if strings.HasSuffix(c, "\n") {
		c = c[:len(c)-1]
		c = strings.TrimSuffix(c, "\r")
	}
	return c
}

// finishFence completes the tool block that owns the fence, if any.
func (s *bodyScanner) finishFence() {
	f := s.fence
	s.fence = nil
	if u := s.fenceUse; u != nil {
		s.fenceUse = nil
		u.Span.End = f.Span.End
		u.RawInput = s.fenceContent(f)
		if !f.Closed() {
			u.InputError = "the fence is not closed"
			s.addDiag(diag(f.OpenerSpan(), SeverityError, CodeToolUseUnclosedFence, u.ID,
				"Tool use fence is not closed (add a line of %s)", strings.Repeat("`", f.Ticks)))
			return
		}
		s.decodeInput(u, f)
	}
	if r := s.fenceResult; r != nil {
		s.fenceResult = nil
		r.Span.End = f.Span.End
		r.Content = s.fenceContent(f)
		s.finishResult(r, f)
		if !f.Closed() {
			s.addDiag(diag(f.OpenerSpan(), SeverityError, CodeResultUnclosedFence, r.ID,
				"Tool result fence is not closed (add a line of %s)", strings.Repeat("`", f.Ticks)))
		}
		return
	}
	m := s.fenceMarker
	s.fenceMarker = Span{}
	switch {
	case !f.Closed():
		s.unclosedFence(f) // says already that the rest is inside
	case m != (Span{}):
		s.addDiag(diag(m, SeverityWarning, CodeRoleMarkerInFence, "",
			"This role marker is inside a code fence, so no message starts here; if the fence should end before it, add its closing %s above", strings.Repeat("`", f.Ticks)))
	}
}

// preambleFence is a fence line before the first role marker. Only a line-1
// frontmatter opener that never closed (the frontmatter reader left it to the
// body) gets a word: the user meant frontmatter and has none.
func (s *bodyScanner) preambleFence(line string, ticks, start, end int) {
	if start != 0 {
		return
	}
	if _, ok := frontmatterOpener(line); ok {
		s.addDiag(diag(Span{start, end}, SeverityWarning, CodeUnclosedFence, "",
			"Frontmatter is not closed (add a line of %s), so it is ordinary text before the first role marker and is ignored", strings.Repeat("`", ticks)))
	}
}

// unclosedFence warns about a plain fence that runs to the end of the
// document. Flemma reads it the same way (the rest is inside the fence); the
// warning says why later messages are gone.
func (s *bodyScanner) unclosedFence(f *Fence) {
	closer := strings.Repeat("`", f.Ticks)
	s.addDiag(diag(f.OpenerSpan(), SeverityWarning, CodeUnclosedFence, "",
		"Code fence is not closed (add a line of %s); the rest of the document is inside it", closer))
}

func (s *bodyScanner) endWaitWithoutFence() {
	if u := s.waitUse; u != nil {
		s.waitUse = nil
		u.InputError = MessageToolUseNoFence
		s.addDiag(diag(u.HeaderSpan, SeverityError, CodeToolUseNoFence, u.ID, "%s", MessageToolUseNoFence))
	}
	if r := s.waitResult; r != nil {
		s.waitResult = nil
		s.finishResult(r, nil)
		s.addDiag(diag(r.HeaderSpan, SeverityError, CodeResultNoFence, r.ID,
			"Tool result requires a fenced code block"))
	}
}

func (s *bodyScanner) toolHeader(line string, start, end int) {
	switch s.role() {
	case "Assistant":
		nameAt, nameLen, idAt, idLen, ok := toolUseHeader(line)
		if !ok {
			return
		}
		u := newNode(&s.batch, &s.batch.uses)
		*u = ToolUse{
			ID: line[idAt : idAt+idLen], Name: line[nameAt : nameAt+nameLen],
			Span: Span{start, s.lineAfter(end)}, HeaderSpan: Span{start, end},
			name: inLine{int32(nameAt), int32(nameLen)}, id: inLine{int32(idAt), int32(idLen)},
			Message: s.messageIndex(),
		}
		s.cur.ToolUses = addNode(&s.batch, &s.batch.useLists, s.cur.ToolUses, u)
		s.waitUse = u
	case "You":
		idAt, idLen, sufAt, sufLen, ok := toolResultHeader(line)
		if !ok {
			s.fileRefs(line, start)
			return
		}
		r := newNode(&s.batch, &s.batch.results)
		*r = ToolResult{
			ID: line[idAt : idAt+idLen], Span: Span{start, s.lineAfter(end)}, HeaderSpan: Span{start, end},
			id: inLine{int32(idAt), int32(idLen)}, Message: s.messageIndex(),
		}
		s.resultInfo = parseSuffix(line, start, sufAt, sufLen)
		s.cur.ToolResults = addNode(&s.batch, &s.batch.resultLists, s.cur.ToolResults, r)
		s.waitResult = r
	}
}

func (s *bodyScanner) lineAfter(end int) int { return s.base + lineAfter(s.text, end-s.base) }

// lineAfter is the offset just past the line ending at end (end itself at EOF).
func lineAfter(text string, end int) int {
	if end < len(text) && text[end] == '\r' {
		end++
	}
	if end < len(text) && text[end] == '\n' {
		end++
	}
	return end
}

func (s *bodyScanner) angleLine(line string, start, next int) {
	if msg, ok := abortMarker(line); ok {
		if s.cur != nil && s.cur.Abort() == nil {
			s.cur.more().abort = &AbortMarker{Span: Span{start, next}, Message: msg}
		}
		return
	}
	if s.role() != "Assistant" {
		return
	}
	if attrs, selfClosing, ok := thinkingOpen(line); ok {
		t := &Thinking{Span: Span{start, next}, Attrs: attrs, SelfClosing: selfClosing}
		x := s.cur.more()
		x.thinking = append(x.thinking, t)
		if !selfClosing {
			t.Span.End = s.docLen
			s.thinking = t
		}
	}
}
