package surface

import (
	"sync"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
)

// The 10 MB generated document of docs/performance.md, built once.
var (
	bigDocOnce sync.Once
	bigDoc     *chatdoc.Document
)

func bench10MB(b *testing.B) *chatdoc.Document {
	b.Helper()
	bigDocOnce.Do(func() { bigDoc = chatdoc.Parse(chatgen.Generate(10<<20, 1)) })
	return bigDoc
}

// typed returns the document after typing one character in its last message
// (the usual place in a chat) and deleting it again, alternating.
func typed(doc *chatdoc.Document, i int) *chatdoc.Document {
	last := doc.Messages[len(doc.Messages)-1]
	p := doc.Lines.Position(last.MarkerSpan.End+1, chatdoc.UTF16)
	if i%2 == 0 {
		return doc.Apply([]chatdoc.Change{{Range: &chatdoc.Range{Start: p, End: p}, Text: "x"}}, chatdoc.UTF16)
	}
	return doc.Apply([]chatdoc.Change{{Range: &chatdoc.Range{Start: p, End: chatdoc.Position{Line: p.Line, Character: p.Character + 1}}}}, chatdoc.UTF16)
}

func BenchmarkSemanticTokensFull10MB(b *testing.B) {
	doc := bench10MB(b)
	b.SetBytes(int64(doc.Len()))
	for b.Loop() {
		SemanticTokens(doc, chatdoc.UTF16)
	}
}

// BenchmarkSemanticTokensDelta10MB is what the server does on
// semanticTokens/full/delta after a keystroke in the last message: tokens of
// the new snapshot through the document's TokenCache, then the edit against
// the previous array. Parsing is not included.
func BenchmarkSemanticTokensDelta10MB(b *testing.B) {
	doc := bench10MB(b)
	benchDelta(b, []*chatdoc.Document{typed(doc, 0), doc})
}

// BenchmarkSemanticTokensDeltaMiddle10MB types in the middle message, so
// every later message moves (new pointers, same text).
func BenchmarkSemanticTokensDeltaMiddle10MB(b *testing.B) {
	doc := bench10MB(b)
	m := doc.Messages[len(doc.Messages)/2]
	p := doc.Lines.Position(m.MarkerSpan.End+1, chatdoc.UTF16)
	edited := doc.Apply([]chatdoc.Change{{Range: &chatdoc.Range{Start: p, End: p}, Text: "x"}}, chatdoc.UTF16)
	benchDelta(b, []*chatdoc.Document{edited, doc})
}

func benchDelta(b *testing.B, docs []*chatdoc.Document) {
	cache := NewTokenCache()
	prev := cache.Tokens(docs[1], chatdoc.UTF16)
	for i := 0; b.Loop(); i++ {
		cur := cache.Tokens(docs[i%2], chatdoc.UTF16)
		SemanticTokensDelta(prev, cur)
		prev = cur
	}
}

// BenchmarkSemanticTokensDeltaDiffOnly10MB is the diff alone.
func BenchmarkSemanticTokensDeltaDiffOnly10MB(b *testing.B) {
	doc := bench10MB(b)
	prev, cur := SemanticTokens(doc, chatdoc.UTF16), SemanticTokens(typed(doc, 0), chatdoc.UTF16)
	for b.Loop() {
		SemanticTokensDelta(prev, cur)
	}
}

func BenchmarkDocumentSymbols10MB(b *testing.B) {
	doc := bench10MB(b)
	for b.Loop() {
		DocumentSymbols(doc, chatdoc.UTF16, nil)
	}
}

func BenchmarkFoldingRanges10MB(b *testing.B) {
	doc := bench10MB(b)
	for b.Loop() {
		FoldingRanges(doc, chatdoc.UTF16)
	}
}

func BenchmarkCompletion10MB(b *testing.B) {
	doc := bench10MB(b)
	last := doc.Messages[len(doc.Messages)-1]
	pos := doc.Lines.Position(last.MarkerSpan.Start+1, chatdoc.UTF16)
	for b.Loop() {
		Completion(doc, chatdoc.UTF16, pos, []string{"bash", "read"})
	}
}

func BenchmarkSelectionRanges10MB(b *testing.B) {
	doc := bench10MB(b)
	pos := doc.Lines.Position(doc.Len()/2, chatdoc.UTF16)
	for b.Loop() {
		SelectionRanges(doc, chatdoc.UTF16, []chatdoc.Position{pos})
	}
}
