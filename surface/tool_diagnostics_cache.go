package surface

import (
	"sync"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
)

// ToolDiagnosticsCache is the tool diagnostics remembered per part of the
// document (chatdoc.EachPart): after a keystroke only the parts the edit
// replaced are looked at again, and the others' findings are shifted to
// where their part moved. A document's publish after typing then costs
// what the edit touched, not the 15,000 tool uses of a long conversation.
//
// The findings depend on the tools too: the stamp given with each call
// (tools.OnTarget.Stamp) must change whenever they may have, and a new
// stamp forgets everything. One cache per document; safe for concurrent use.
type ToolDiagnosticsCache struct {
	mu    sync.Mutex
	stamp tools.Stamp
	parts map[chatdoc.PartKey][]chatdoc.Diagnostic // spans as their part stores its messages
}

// Diagnostics are ToolDiagnosticsParallel's findings, in document order,
// from what is remembered of the parts doc shares with the documents
// before it under the same stamp.
func (c *ToolDiagnosticsCache) Diagnostics(doc *chatdoc.Document, reg ToolInfo, stamp tools.Stamp) []chatdoc.Diagnostic {
	diags := []chatdoc.Diagnostic{}
	if doc == nil || reg == nil {
		return diags
	}
	c.mu.Lock()
	known := c.parts
	if c.stamp != stamp {
		known = nil
	}
	c.mu.Unlock()
	// Only the current parts are kept: a key holds its part's messages.
	parts := make(map[chatdoc.PartKey][]chatdoc.Diagnostic, len(known))
	doc.EachPart(func(p chatdoc.Part) {
		found, ok := known[p.Key]
		if !ok {
			found = partToolDiagnostics(doc, reg, p)
		}
		parts[p.Key] = found
		for _, d := range found {
			d.Span = d.Span.Shift(p.Delta)
			diags = append(diags, d)
		}
	})
	c.mu.Lock()
	c.stamp, c.parts = stamp, parts
	c.mu.Unlock()
	return diags
}

// partToolDiagnostics are the findings of one part's tool uses, with spans
// as the part stores them (the snapshot's minus its delta).
func partToolDiagnostics(doc *chatdoc.Document, reg ToolInfo, p chatdoc.Part) []chatdoc.Diagnostic {
	var found []chatdoc.Diagnostic
	i := p.FirstUse
	for _, m := range p.Stored {
		for _, u := range m.ToolUses {
			found = appendUseDiagnostics(found, doc, u, i, reg)
			i++
		}
	}
	for k := range found {
		found[k].Span = found[k].Span.Shift(-p.Delta)
	}
	return found
}
