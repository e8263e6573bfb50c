package chatdoc

import "slices"

// Change is one LSP content change: Text replaces Range, or the whole
// document when Range is nil.
type Change struct {
	Range *Range
	Text  string
}

// Apply returns the snapshot after the changes, applied in order as LSP
// specifies. Each ranged change reparses only the messages it touches; the
// result equals Parse of the new text exactly (FuzzIncremental checks it).
func (d *Document) Apply(changes []Change, enc Encoding) *Document {
	cur := d
	for _, ch := range changes {
		if ch.Range == nil {
			cur = Parse(ch.Text)
			continue
		}
		cur = cur.Replace(cur.Span(*ch.Range, enc), ch.Text)
	}
	return cur
}

// windowSlack is how far past a change the reparse window first reaches,
// and the least it grows by when the reparsed messages are longer (scan.go,
// more). A variable only so that tests can make it tiny.
var windowSlack = 4 << 10

// Replace returns the snapshot with span s replaced by text (s is clamped
// to the document).
func (d *Document) Replace(s Span, text string) *Document {
	s.Start = max(0, min(s.Start, d.Len()))
	s.End = max(s.Start, min(s.End, d.Len()))
	newText := d.text.replace(s.Start, s.End, text)
	if d.needsFullParse(s) {
		return Parse(newText.String())
	}
	delta := len(text) - s.Len()
	// Line 1 is untouched (needsFullParse), so the newline style stays.
	nd := &Document{
		Newline: d.Newline, Lines: d.Lines.replace(s.Start, s.End, newText),
		Frontmatter: d.Frontmatter, bodyStart: d.bodyStart, firstLineOpener: d.firstLineOpener,
	}
	nd.setText(newText, "", false)

	// Restart at the last message whose marker line the change leaves alone.
	st := d.store
	j := st.indexAt(s.Start)
	for j >= 0 && !d.markerUntouched(st.message(j), s.Start) {
		j--
	}
	restart := d.bodyStart
	if j >= 0 {
		restart = st.start(j)
	} else {
		j = 0
	}

	// Reparse until a marker that starts an old message after the change.
	resume := st.count
	changeEnd := s.Start + len(text)
	scanner := newWindowScanner(newText, restart, changeEnd+windowSlack, j)
	fresh, _ := scanner.scan(restart, func(p int) bool {
		if p < changeEnd {
			return false
		}
		if k := st.indexAt(p - delta); k >= 0 && st.start(k) == p-delta {
			resume = k
			return true
		}
		return false
	})

	nd.preDiags = d.preDiags
	if restart == d.bodyStart {
		nd.preDiags = scanner.pre // the text before the first marker was rescanned
	}
	if len(fresh) > 0 && j < st.count {
		reuseNodes(st.message(j), fresh[0])
	}
	nd.store = st.splice(j, resume, fresh, delta)
	nd.idFindings, nd.ids = d.idFindings, d.ids
	if !sameIDs(st.span(j, resume, false), fresh) { // IDs do not move: the stored window will do
		nd.finish()
	}
	return nd
}

// sameIDs reports whether two runs of messages hold the same tool use and
// result IDs in the same order (so document-wide ID findings still hold).
func sameIDs(a, b []*Message) bool {
	var ua, ub, ra, rb []string
	for _, m := range a {
		for _, u := range m.ToolUses {
			ua = append(ua, u.ID)
		}
		for _, r := range m.ToolResults {
			ra = append(ra, r.ID)
		}
	}
	for _, m := range b {
		for _, u := range m.ToolUses {
			ub = append(ub, u.ID)
		}
		for _, r := range m.ToolResults {
			rb = append(rb, r.ID)
		}
	}
	return slices.Equal(ua, ub) && slices.Equal(ra, rb)
}

// markerUntouched reports whether an edit starting at offset leaves m's marker
// line, including its line ending, unchanged.
func (d *Document) markerUntouched(m *Message, offset int) bool {
	end := m.MarkerSpan.End
	after := d.lineAfter(end)
	return after > end && d.text.byteAt(after-1) == '\n' && after <= offset
}

// needsFullParse reports whether the change can alter the frontmatter (or
// create one), which the incremental path keeps as it is.
func (d *Document) needsFullParse(s Span) bool {
	if d.Lines.LineCount() == 1 || s.Start < d.Lines.LineStart(1) {
		return true // line 1, or a text without line ending
	}
	if fm := d.Frontmatter; fm != nil {
		return s.Start < fm.Span.End || s.Start == fm.Span.End && d.text.byteAt(fm.Span.End-1) != '\n'
	}
	return d.firstLineOpener
}
