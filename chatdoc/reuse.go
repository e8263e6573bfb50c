package chatdoc

import "slices"

// reuseNodes makes the reparsed message fresh share the nodes of old (the
// message that started at the same offset) that came out identical, which
// are usually all those before the edit. Then the document-wide lists can
// be shared when nothing in them changed (spliceList), instead of copied:
// typing after the tool results of the last message copies no list.
func reuseNodes(old, fresh *Message) {
	if old.Span.Start != fresh.Span.Start {
		return
	}
	fenceOf := map[*Fence]*Fence{}
	for i, f := range fresh.Fences {
		if i < len(old.Fences) && *f == *old.Fences[i] {
			fenceOf[f] = old.Fences[i]
			fresh.Fences[i] = old.Fences[i]
		}
	}
	if len(fenceOf) == 0 {
		return // a tool block without a shared fence can't be shared
	}
	remap := func(f *Fence) *Fence {
		if o, ok := fenceOf[f]; ok {
			return o
		}
		return f
	}
	for i, u := range fresh.ToolUses {
		u.Fence = remap(u.Fence) // keep pointing into fresh.Fences
		if i < len(old.ToolUses) && sameToolUse(u, old.ToolUses[i]) {
			fresh.ToolUses[i] = old.ToolUses[i]
		}
	}
	for i, r := range fresh.ToolResults {
		r.Fence = remap(r.Fence)
		if i < len(old.ToolResults) && sameToolResult(r, old.ToolResults[i]) {
			fresh.ToolResults[i] = old.ToolResults[i]
		}
	}
}

// sameToolUse: equal fields (Input is decoded from RawInput).
func sameToolUse(a, b *ToolUse) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Span == b.Span && a.HeaderSpan == b.HeaderSpan &&
		a.name == b.name && a.id == b.id && a.Fence == b.Fence && a.RawInput == b.RawInput &&
		a.InputError == b.InputError && a.Message == b.Message
}

func sameToolResult(a, b *ToolResult) bool {
	return a.ID == b.ID && a.Status == b.Status && a.Dialect == b.Dialect && slices.Equal(a.Extra(), b.Extra()) &&
		(a.extra == nil) == (b.extra == nil) && a.Span == b.Span && a.HeaderSpan == b.HeaderSpan &&
		a.id == b.id && a.status == b.status && a.Fence == b.Fence && a.Content == b.Content &&
		a.Message == b.Message
}
