package surface

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
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
	last := doc.Messages()[len(doc.Messages())-1]
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
	m := doc.Messages()[len(doc.Messages())/2]
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
	last := doc.Messages()[len(doc.Messages())-1]
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

// The keystroke benchmarks below make a new snapshot per iteration (one
// character typed or deleted in the last message, not timed), as an editor
// does, so a request that joined the whole text (Document.Text, 2.6 ms on
// this document) would pay for it every time.

// BenchmarkSemanticTokensKeystroke10MB: semanticTokens/full/delta after each
// keystroke, through a warm TokenCache.
func BenchmarkSemanticTokensKeystroke10MB(b *testing.B) { benchTokensTyping(b, typed) }

// typedTop is typed near the top: after the second message, so that every
// later part moves (the worst case for a request that reads every message).
func typedTop(doc *chatdoc.Document, i int) *chatdoc.Document {
	at := doc.Message(2).Span.Start - 1
	if i%2 == 0 {
		return doc.Replace(chatdoc.Span{Start: at, End: at}, "x")
	}
	return doc.Replace(chatdoc.Span{Start: at, End: at + 1}, "")
}

// BenchmarkSemanticTokensKeystrokeTop10MB is BenchmarkSemanticTokensKeystroke10MB
// typing near the top.
func BenchmarkSemanticTokensKeystrokeTop10MB(b *testing.B) { benchTokensTyping(b, typedTop) }

func benchTokensTyping(b *testing.B, typing func(*chatdoc.Document, int) *chatdoc.Document) {
	doc := bench10MB(b)
	cache := NewTokenCache()
	prev := cache.Tokens(doc, chatdoc.UTF16)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		doc = typing(doc, i)
		b.StartTimer()
		cur := cache.Tokens(doc, chatdoc.UTF16)
		SemanticTokensDelta(prev, cur)
		prev = cur
	}
}

// badCalls ends the 10 MB document with calls whose input breaks the
// built-in tools' schemas and a pre-0.6 inline role marker, so tool
// diagnostics and quick fixes have spans to compute and text to read (the
// generated document has neither).
const badCalls = "@You: Please read a.go\n\n@Assistant:\nLet me look.\n\n" +
	"**Tool Use:** `read` (`bad_1`)\n\n```json\n{\"path\": 3, \"limit\": \"all\"}\n```\n\n" +
	"**Tool Use:** `reed` (`bad_2`)\n\n```json\n{\"path\": \"a.go\"}\n```\n\n" +
	"@You:\nWhy?\n"

var (
	badDocOnce sync.Once
	badDoc     *chatdoc.Document
)

func bench10MBBadCalls(b *testing.B) *chatdoc.Document {
	b.Helper()
	badDocOnce.Do(func() { badDoc = chatdoc.Parse(chatgen.Generate(10<<20, 1) + badCalls) })
	return badDoc
}

// BenchmarkToolDiagnosticsKeystroke10MB: the server's tool diagnostics after
// each keystroke, through its per-document cache (built-in registry; three
// findings at the end).
func BenchmarkToolDiagnosticsKeystroke10MB(b *testing.B) {
	doc := bench10MBBadCalls(b)
	reg := tools.OnTarget{Registry: tools.NewRegistry(builtin.Tools(builtin.Options{}))}
	var cache ToolDiagnosticsCache
	if n := len(cache.Diagnostics(doc, reg, reg.Stamp())); n < 2 {
		b.Fatalf("%d tool diagnostics, want some", n)
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		doc = typed(doc, i)
		b.StartTimer()
		cache.Diagnostics(doc, reg, reg.Stamp())
	}
}

// BenchmarkQuickFixesKeystroke10MB: quick fixes for the parse and tool
// diagnostics of a new snapshot (what code actions ask for).
func BenchmarkQuickFixesKeystroke10MB(b *testing.B) {
	doc := bench10MBBadCalls(b)
	reg := tools.NewRegistry(builtin.Tools(builtin.Options{}))
	// The edits are after the findings, so their spans stay valid; computed
	// once, since tool diagnostics would read the text outside the timer.
	diags := append(append([]chatdoc.Diagnostic{}, doc.Diagnostics()...), toolDiagnostics(doc, reg)...)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		doc = typed(doc, i)
		b.StartTimer()
		for _, d := range diags {
			QuickFixes(doc, d, reg)
		}
	}
}

// The other requests, each once per new snapshot.

func benchKeystroke(b *testing.B, doc *chatdoc.Document, request func(doc *chatdoc.Document, pos chatdoc.Position)) {
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		doc = typed(doc, i)
		last := doc.Messages()[len(doc.Messages())-1]
		pos := doc.Lines.Position(last.MarkerSpan.Start+1, chatdoc.UTF16)
		b.StartTimer()
		request(doc, pos)
	}
}

func BenchmarkCompletionKeystroke10MB(b *testing.B) {
	benchKeystroke(b, bench10MB(b), func(doc *chatdoc.Document, pos chatdoc.Position) {
		Completion(doc, chatdoc.UTF16, pos, []string{"bash", "read"})
	})
}

func BenchmarkSelectionRangesKeystroke10MB(b *testing.B) {
	benchKeystroke(b, bench10MB(b), func(doc *chatdoc.Document, pos chatdoc.Position) {
		SelectionRanges(doc, chatdoc.UTF16, []chatdoc.Position{pos})
	})
}

func BenchmarkDocumentLinksKeystroke10MB(b *testing.B) {
	benchKeystroke(b, bench10MB(b), func(doc *chatdoc.Document, _ chatdoc.Position) {
		DocumentLinks(doc, chatdoc.UTF16, "/tmp")
	})
}

func BenchmarkDocumentSymbolsKeystroke10MB(b *testing.B) {
	benchKeystroke(b, bench10MB(b), func(doc *chatdoc.Document, _ chatdoc.Position) {
		DocumentSymbols(doc, chatdoc.UTF16, nil)
	})
}

func BenchmarkFoldingRangesKeystroke10MB(b *testing.B) {
	benchKeystroke(b, bench10MB(b), func(doc *chatdoc.Document, _ chatdoc.Position) {
		FoldingRanges(doc, chatdoc.UTF16)
	})
}

var (
	refDocOnce sync.Once
	refDoc     *chatdoc.Document
)

// bench10MBFileRefs is the 10 MB document with a reference to a (missing)
// file in each of its 7,676 You messages, all different.
func bench10MBFileRefs(b *testing.B) *chatdoc.Document {
	b.Helper()
	refDocOnce.Do(func() {
		parts := strings.Split(chatgen.Generate(10<<20, 1), "@You:\n")
		for i := 1; i < len(parts); i++ {
			parts[i] = fmt.Sprintf("See @./notes/n%d.md\n", i) + parts[i]
		}
		refDoc = chatdoc.Parse(strings.Join(parts, "@You:\n"))
	})
	return refDoc
}

// BenchmarkFileRefDiagnostics10MB: the missing-file check after a keystroke
// while typing (stats reused within the TTL).
func BenchmarkFileRefDiagnostics10MB(b *testing.B) {
	doc := bench10MBFileRefs(b)
	c := &FileRefChecker{TTL: time.Hour}
	dir := b.TempDir()
	if n := len(c.Diagnostics(doc, dir)); n < 5000 {
		b.Fatalf("%d diagnostics, want one per reference", n)
	}
	for b.Loop() {
		c.Diagnostics(doc, dir)
	}
}

// BenchmarkFileRefDiagnosticsCold10MB stats every referenced file (the
// first run, or the first after the TTL).
func BenchmarkFileRefDiagnosticsCold10MB(b *testing.B) {
	doc := bench10MBFileRefs(b)
	c := &FileRefChecker{TTL: 0}
	dir := b.TempDir()
	for b.Loop() {
		c.Diagnostics(doc, dir)
	}
}

// BenchmarkToolDiagnosticsDense10MB: the tool diagnostics of every call of
// the dense 10 MB document (16,340 calls, all valid) on one core, as
// `chatls check` and a didOpen compute them (built-in registry).
func BenchmarkToolDiagnosticsDense10MB(b *testing.B) {
	doc := chatdoc.ParseOnce(chatgen.GenerateDense(10<<20, 1))
	reg := tools.OnTarget{Registry: tools.NewRegistry(builtin.Tools(builtin.Options{}))}
	uses := doc.ToolUses()
	if d := useDiagnostics(nil, doc, uses, reg); len(d) != 0 || len(uses) < 15000 {
		b.Fatalf("%d calls, %d diagnostics; want ~16,000 valid calls", len(uses), len(d))
	}
	for b.Loop() {
		useDiagnostics(nil, doc, uses, reg)
	}
}
