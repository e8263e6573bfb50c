package chatdoc

// Shifting reuses messages after an edit: their text is unchanged, only
// their offsets (by delta) and message indexes (by dIndex) move. Snapshots
// are immutable, so shifted messages are copies; all copies of one update
// come from a few slabs, one per node type, which keeps the allocation count
// (and the garbage collector's work) independent of the number of messages.

// Shift is the span moved by delta bytes; the zero span stays zero.
func (s Span) Shift(delta int) Span {
	if s == (Span{}) {
		return s // zero spans mean "absent"
	}
	return Span{s.Start + delta, s.End + delta}
}

// slabs hands out consecutive elements of preallocated arrays.
type slabs struct {
	msgs     []Message
	fences   []Fence
	fencePs  []*Fence
	uses     []ToolUse
	usePs    []*ToolUse
	results  []ToolResult
	resultPs []*ToolResult
	extras   []messageExtra
	thinking []Thinking
	thinkPs  []*Thinking
	aborts   []AbortMarker
	refs     []FileRef
	refPs    []*FileRef
	diags    []Diagnostic
}

func newSlabs(msgs []*Message) *slabs {
	var nf, nu, nr, nx, nt, na, nref, nd int
	for _, m := range msgs {
		nf += len(m.Fences)
		nu += len(m.ToolUses)
		nr += len(m.ToolResults)
		if x := m.extra; x != nil {
			nx++
			nt += len(x.thinking)
			nref += len(x.fileRefs)
			nd += len(x.diags)
			if x.abort != nil {
				na++
			}
		}
	}
	return &slabs{
		msgs: make([]Message, 0, len(msgs)), fences: make([]Fence, 0, nf), fencePs: make([]*Fence, 0, nf),
		uses: make([]ToolUse, 0, nu), usePs: make([]*ToolUse, 0, nu),
		results: make([]ToolResult, 0, nr), resultPs: make([]*ToolResult, 0, nr), extras: make([]messageExtra, 0, nx),
		thinking: make([]Thinking, 0, nt), thinkPs: make([]*Thinking, 0, nt),
		aborts: make([]AbortMarker, 0, na), refs: make([]FileRef, 0, nref), refPs: make([]*FileRef, 0, nref),
		diags: make([]Diagnostic, 0, nd),
	}
}

// take appends n zero elements to *slab and returns them (capacity capped,
// so that nobody can append into a neighbour's part).
func take[T any](slab *[]T, n int) []T {
	s := *slab
	*slab = s[:len(s)+n]
	return s[len(s) : len(s)+n : len(s)+n]
}

func appendShifted(dst, msgs []*Message, delta, dIndex int) []*Message {
	if delta == 0 && dIndex == 0 || len(msgs) == 0 {
		return append(dst, msgs...)
	}
	sl := newSlabs(msgs)
	for _, m := range msgs {
		nm := &take(&sl.msgs, 1)[0]
		*nm = *m
		sl.shiftMessage(nm, delta, dIndex)
		dst = append(dst, nm)
	}
	return dst
}

func (sl *slabs) shiftMessage(m *Message, delta, dIndex int) {
	m.Span = m.Span.Shift(delta)
	m.MarkerSpan = m.MarkerSpan.Shift(delta)

	oldFences := m.Fences
	if len(oldFences) > 0 {
		fences := take(&sl.fences, len(oldFences))
		m.Fences = take(&sl.fencePs, len(oldFences))
		for i, f := range oldFences {
			fences[i] = *f
			nf := &fences[i]
			nf.Span, nf.ContentSpan = nf.Span.Shift(delta), nf.ContentSpan.Shift(delta)
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
		uses := take(&sl.uses, len(m.ToolUses))
		ptrs := take(&sl.usePs, len(m.ToolUses))
		for i, u := range m.ToolUses {
			uses[i] = *u
			nu := &uses[i]
			nu.Span, nu.HeaderSpan = nu.Span.Shift(delta), nu.HeaderSpan.Shift(delta)
			nu.Fence = lookup(u.Fence)
			nu.Message += dIndex
			ptrs[i] = nu
		}
		m.ToolUses = ptrs
	}
	if len(m.ToolResults) > 0 {
		results := take(&sl.results, len(m.ToolResults))
		ptrs := take(&sl.resultPs, len(m.ToolResults))
		for i, r := range m.ToolResults {
			results[i] = *r
			nr := &results[i]
			nr.Span, nr.HeaderSpan = nr.Span.Shift(delta), nr.HeaderSpan.Shift(delta)
			nr.Fence = lookup(r.Fence)
			nr.Message += dIndex
			ptrs[i] = nr
		}
		m.ToolResults = ptrs
	}
	if m.extra != nil {
		x := &take(&sl.extras, 1)[0]
		*x = *m.extra
		sl.shiftExtra(x, delta)
		m.extra = x
	}
}

func (sl *slabs) shiftExtra(x *messageExtra, delta int) {
	if len(x.thinking) > 0 {
		ts := take(&sl.thinking, len(x.thinking))
		ptrs := take(&sl.thinkPs, len(x.thinking))
		for i, t := range x.thinking {
			ts[i] = *t
			ts[i].Span = t.Span.Shift(delta)
			ptrs[i] = &ts[i]
		}
		x.thinking = ptrs
	}
	if x.abort != nil {
		a := &take(&sl.aborts, 1)[0]
		*a = *x.abort
		a.Span = a.Span.Shift(delta)
		x.abort = a
	}
	if len(x.fileRefs) > 0 {
		refs := take(&sl.refs, len(x.fileRefs))
		ptrs := take(&sl.refPs, len(x.fileRefs))
		for i, f := range x.fileRefs {
			refs[i] = *f
			refs[i].Span = f.Span.Shift(delta)
			ptrs[i] = &refs[i]
		}
		x.fileRefs = ptrs
	}
	if len(x.diags) > 0 {
		diags := take(&sl.diags, len(x.diags))
		for i, dg := range x.diags {
			dg.Span = dg.Span.Shift(delta)
			diags[i] = dg
		}
		x.diags = diags
	}
}
