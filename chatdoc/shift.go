package chatdoc

// Shifting reuses messages after an edit: their text is unchanged, only
// their offsets (by delta) and message indexes (by dIndex) move. Snapshots
// are immutable, so shifted messages are copies.

func (s Span) shift(delta int) Span {
	if s == (Span{}) {
		return s // zero spans mean "absent"
	}
	return Span{s.Start + delta, s.End + delta}
}

func appendShifted(dst, msgs []*Message, delta, dIndex int) []*Message {
	if delta == 0 && dIndex == 0 {
		return append(dst, msgs...)
	}
	slab := make([]Message, len(msgs))
	for i, m := range msgs {
		slab[i] = *m
		shiftMessage(&slab[i], delta, dIndex)
		dst = append(dst, &slab[i])
	}
	return dst
}

func shiftMessage(m *Message, delta, dIndex int) {
	m.Span = m.Span.shift(delta)
	m.MarkerSpan = m.MarkerSpan.shift(delta)

	oldFences := m.Fences
	if len(oldFences) > 0 {
		fences := make([]Fence, len(oldFences))
		m.Fences = make([]*Fence, len(oldFences))
		for i, f := range oldFences {
			fences[i] = *f
			nf := &fences[i]
			nf.Span, nf.OpenerSpan = nf.Span.shift(delta), nf.OpenerSpan.shift(delta)
			nf.ContentSpan, nf.CloserSpan = nf.ContentSpan.shift(delta), nf.CloserSpan.shift(delta)
			m.Fences[i] = nf
		}
	}
	// Tool blocks point at fences of the same message, in order: map them by
	// position in the old list with a forward-moving cursor.
	cursor := 0
	lookup := func(old *Fence) *Fence {
		if old == nil {
			return nil
		}
		for i := cursor; i < len(oldFences); i++ {
			if oldFences[i] == old {
				cursor = i
				return m.Fences[i]
			}
		}
		for i := range oldFences[:cursor] {
			if oldFences[i] == old {
				return m.Fences[i]
			}
		}
		return nil
	}

	if len(m.ToolUses) > 0 {
		uses := make([]ToolUse, len(m.ToolUses))
		ptrs := make([]*ToolUse, len(m.ToolUses))
		for i, u := range m.ToolUses {
			uses[i] = *u
			nu := &uses[i]
			nu.Span, nu.HeaderSpan = nu.Span.shift(delta), nu.HeaderSpan.shift(delta)
			nu.NameSpan, nu.IDSpan = nu.NameSpan.shift(delta), nu.IDSpan.shift(delta)
			nu.Fence = lookup(u.Fence)
			nu.Message += dIndex
			ptrs[i] = nu
		}
		m.ToolUses = ptrs
	}
	if len(m.ToolResults) > 0 {
		results := make([]ToolResult, len(m.ToolResults))
		ptrs := make([]*ToolResult, len(m.ToolResults))
		for i, r := range m.ToolResults {
			results[i] = *r
			nr := &results[i]
			nr.Span, nr.HeaderSpan = nr.Span.shift(delta), nr.HeaderSpan.shift(delta)
			nr.IDSpan, nr.StatusSpan = nr.IDSpan.shift(delta), nr.StatusSpan.shift(delta)
			nr.Fence = lookup(r.Fence)
			nr.Message += dIndex
			ptrs[i] = nr
		}
		m.ToolResults = ptrs
	}
	if len(m.Thinking) > 0 {
		ts := make([]Thinking, len(m.Thinking))
		ptrs := make([]*Thinking, len(m.Thinking))
		for i, t := range m.Thinking {
			ts[i] = *t
			ts[i].Span = t.Span.shift(delta)
			ptrs[i] = &ts[i]
		}
		m.Thinking = ptrs
	}
	if m.Abort != nil {
		a := *m.Abort
		a.Span = a.Span.shift(delta)
		m.Abort = &a
	}
	if len(m.FileRefs) > 0 {
		refs := make([]FileRef, len(m.FileRefs))
		ptrs := make([]*FileRef, len(m.FileRefs))
		for i, f := range m.FileRefs {
			refs[i] = *f
			refs[i].Span = f.Span.shift(delta)
			ptrs[i] = &refs[i]
		}
		m.FileRefs = ptrs
	}
	if len(m.diags) > 0 {
		diags := make([]Diagnostic, len(m.diags))
		for i, dg := range m.diags {
			dg.Span = dg.Span.shift(delta)
			diags[i] = dg
		}
		m.diags = diags
	}
}
