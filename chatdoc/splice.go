package chatdoc

import "sort"

// splice describes an incremental update: old messages [j, resume) were
// replaced by fresh ones reparsed from offset restart; later messages moved
// by delta bytes.
type splice struct {
	j, resume int
	fresh     []*Message
	restart   int
	delta     int
	pre       []Diagnostic // findings of the rescan before the first marker
}

// finishSplice is finish for a snapshot made from d by a splice. It costs
// O(changed) plus pointer copies of the lists, not a walk over every
// message: lists and diagnostics before the window are reused, those after
// it shifted (already done by appendShifted for the messages).
func (nd *Document) finishSplice(d *Document, sp splice) {
	tail := nd.Messages()[sp.j+len(sp.fresh):]
	shifted := len(tail) > 0 && (sp.delta != 0 || sp.j+len(sp.fresh) != sp.resume)
	nd.toolUses = spliceList(d.ToolUses(), sp, tail, shifted, func(m *Message) []*ToolUse { return m.ToolUses },
		func(u *ToolUse) int { return u.Message })
	nd.toolResults = spliceList(d.ToolResults(), sp, tail, shifted, func(m *Message) []*ToolResult { return m.ToolResults },
		func(r *ToolResult) int { return r.Message })

	if !sameIDs(d.Messages()[sp.j:sp.resume], sp.fresh) {
		nd.idFindings, nd.ids = findIDProblems(nd.ToolUses(), nd.ToolResults())
		nd.diagnostics = collectDiagnostics(nd.leadingDiags(), nd.Messages(), nd.idDiagnostics())
		return
	}
	// The same IDs in the same order: document-wide findings and the ID
	// index hold by list position.
	nd.idFindings, nd.ids = d.idFindings, d.ids
	oldEnd, newEnd := d.Len(), nd.Len()
	if sp.resume < len(d.Messages()) {
		oldEnd = d.Messages()[sp.resume].Span.Start
		newEnd = oldEnd + sp.delta
	}
	// Only the findings about nodes of the reparsed messages are formatted.
	freshEnd := sp.j + len(sp.fresh)
	ua, ub := listRange(nd.ToolUses(), sp.j, freshEnd, func(u *ToolUse) int { return u.Message })
	ra, rb := listRange(nd.ToolResults(), sp.j, freshEnd, func(r *ToolResult) int { return r.Message })
	global := nd.idDiagnosticsWhere(func(f idFinding) bool {
		if f.result {
			return f.index >= ra && f.index < rb
		}
		return f.index >= ua && f.index < ub
	})
	nd.diagnostics = spliceDiagnostics(d.Diagnostics(), global, sp, oldEnd, newEnd)
}

// listRange is the part of a document-wide list that belongs to messages
// [from, to).
func listRange[T any](list []*T, from, to int, msg func(*T) int) (int, int) {
	a := sort.Search(len(list), func(i int) bool { return msg(list[i]) >= from })
	b := sort.Search(len(list), func(i int) bool { return msg(list[i]) >= to })
	return a, b
}

// spliceList rebuilds a document-wide list (tool uses or results): the old
// entries of messages before the window, the fresh ones, then those of the
// later messages (the old pointers unless they were shifted). An unchanged
// list is shared.
func spliceList[T any](old []*T, sp splice, tail []*Message, shifted bool, of func(*Message) []*T, msg func(*T) int) []*T {
	a, b := listRange(old, sp.j, sp.resume, msg)
	n := 0
	for _, m := range sp.fresh {
		n += len(of(m))
	}
	if n == b-a && !shifted && sameEntries(old[a:b], sp.fresh, of) {
		return old
	}
	out := make([]*T, 0, len(old)-(b-a)+n)
	out = append(out, old[:a]...)
	for _, m := range sp.fresh {
		out = append(out, of(m)...)
	}
	if !shifted {
		return append(out, old[b:]...)
	}
	for _, m := range tail {
		out = append(out, of(m)...)
	}
	return out
}

// spliceDiagnostics merges findings in document order as collectDiagnostics
// does: the old ones before the window, the window's (its messages' and the
// document-wide ones about its nodes, given in global; stable-sorted), and
// the old ones after it, shifted. Every finding lies inside the message it belongs to, so the
// three groups do not interleave.
func spliceDiagnostics(old, global []Diagnostic, sp splice, oldEnd, newEnd int) []Diagnostic {
	a := sort.Search(len(old), func(i int) bool { return old[i].Span.Start >= sp.restart })
	b := sort.Search(len(old), func(i int) bool { return old[i].Span.Start >= oldEnd })
	mid := append([]Diagnostic(nil), sp.pre...)
	for _, m := range sp.fresh {
		mid = append(mid, m.diags...)
	}
	for _, g := range global {
		if g.Span.Start >= sp.restart && g.Span.Start < newEnd {
			mid = append(mid, g)
		}
	}
	sort.SliceStable(mid, func(i, j int) bool { return mid[i].Span.Start < mid[j].Span.Start })
	out := make([]Diagnostic, 0, a+len(mid)+len(old)-b)
	out = append(out, old[:a]...)
	out = append(out, mid...)
	for _, dg := range old[b:] {
		dg.Span = dg.Span.shift(sp.delta)
		out = append(out, dg)
	}
	return out
}

// sameEntries reports whether the fresh messages hold exactly the entries
// (pointers) of old, in order (see reuseNodes).
func sameEntries[T any](old []*T, fresh []*Message, of func(*Message) []*T) bool {
	i := 0
	for _, m := range fresh {
		for _, e := range of(m) {
			if old[i] != e {
				return false
			}
			i++
		}
	}
	return true
}
