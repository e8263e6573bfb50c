package surface

import (
	"runtime"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
)

// TestRequestsDoNotJoinText: after an edit, Document.Text copies the whole
// document once per snapshot (2.6 ms at 10 MB), so no request may call it.
// chatdoc does not tell whether a snapshot's text was joined; instead this
// compares what a request allocates on a new snapshot with what it
// allocates on an identical one whose text was joined beforehand. A join
// shows as about doc.Len() more bytes.
func TestRequestsDoNotJoinText(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1 MB document")
	}
	const tail = "@You: Please look at @./notes.md\n\n" +
		"@Assistant:\nSure.\n\n" +
		"**Tool Use:** `reed` (`bad_1`)\n\n```json\n{\"path\": \"a.go\"}\n```\n\n" +
		"**Tool Use:** `edit` (`bad_2`)\n\n```json\n{\"oldText\": 1}\n```\n\n" +
		"@You:\nAnd this:\n\n```go\nfunc f() {\n"
	// JSON frontmatter (a fence on line 1) so that completion in it reads
	// the frontmatter through the window.
	base := chatdoc.Parse("```json\n{\"flemma\": {\"tools\": {\"auto_approve\": [\"bash\", \"re\"]}}}\n```\n" + chatgen.Generate(1<<20, 7) + tail)
	if base.Frontmatter == nil || base.Frontmatter.Language != "json" {
		t.Fatal("the document must start with JSON frontmatter")
	}
	frontmatterString := chatdoc.Position{Line: 1, Character: 50} // after "re" in ["bash", "re"]
	if items := Completion(base, chatdoc.UTF16, frontmatterString, []string{"read"}); !hasLabel(items, "$readonly") {
		t.Fatalf("the position must be in a frontmatter list entry (tool names and presets offered), got %v", items)
	}
	reg := newFakeRegistry()
	last := base.Messages()[len(base.Messages())-1]
	positions := []chatdoc.Position{
		frontmatterString,
		base.Lines.Position(last.Span.Start+1, chatdoc.UTF16),
		base.Lines.Position(base.Len(), chatdoc.UTF16),
		base.Lines.Position(base.Len()/2, chatdoc.UTF16),
	}
	cache := NewTokenCache()
	cache.Tokens(base, chatdoc.UTF16) // warm
	requests := []struct {
		name string
		run  func(doc *chatdoc.Document)
	}{
		{"SemanticTokens", func(doc *chatdoc.Document) { SemanticTokens(doc, chatdoc.UTF16) }},
		{"TokenCache.Tokens", func(doc *chatdoc.Document) { cache.Tokens(doc, chatdoc.UTF16) }},
		{"ToolDiagnostics", func(doc *chatdoc.Document) { toolDiagnostics(doc, reg) }},
		{"QuickFixes", func(doc *chatdoc.Document) {
			diags := append(append([]chatdoc.Diagnostic{}, doc.Diagnostics()...), toolDiagnostics(doc, reg)...)
			for _, u := range doc.ToolUses()[len(doc.ToolUses())-2:] {
				diags = append(diags, chatdoc.Diagnostic{Code: CodeUnansweredToolUse, ToolID: u.ID, Span: u.HeaderSpan})
			}
			for _, d := range diags {
				QuickFixes(doc, d, reg)
			}
		}},
		{"DocumentSymbols", func(doc *chatdoc.Document) { DocumentSymbols(doc, chatdoc.UTF16, nil) }},
		{"FoldingRanges", func(doc *chatdoc.Document) { FoldingRanges(doc, chatdoc.UTF16) }},
		{"DocumentLinks", func(doc *chatdoc.Document) { DocumentLinks(doc, chatdoc.UTF16, "/tmp") }},
		{"Completion", func(doc *chatdoc.Document) {
			for _, pos := range positions {
				Completion(doc, chatdoc.UTF16, pos, []string{"bash", "read"})
			}
		}},
		{"SelectionRanges", func(doc *chatdoc.Document) { SelectionRanges(doc, chatdoc.UTF16, positions) }},
	}
	for _, r := range requests {
		fresh, joined := typed(base, 0), typed(base, 0)
		_ = joined.Text()
		r.run(joined) // warm-up: lazily built state, grown scratch buffers
		r.run(typed(base, 0))
		extra := allocatedBy(func() { r.run(fresh) }) - allocatedBy(func() { r.run(joined) })
		if extra > int64(base.Len()/2) {
			t.Errorf("%s allocates %d more bytes on a new snapshot than on a joined one (text %d bytes): it joins the text", r.name, extra, base.Len())
		}
	}
}

func hasLabel(items []protocol.CompletionItem, label string) bool {
	for _, it := range items {
		if it.Label == label {
			return true
		}
	}
	return false
}

func allocatedBy(f func()) int64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}
