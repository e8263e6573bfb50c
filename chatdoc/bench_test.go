package chatdoc

import (
	"strings"
	"sync"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

const benchSize = 10 << 20

var bench10MB = sync.OnceValue(func() string { return chatgen.Generate(benchSize, 1) })

func TestGeneratedDocumentShape(t *testing.T) {
	if testing.Short() {
		t.Skip("10 MB document")
	}
	d := Parse(bench10MB())
	turns := 0
	for _, m := range d.Messages() {
		if m.Role == "Assistant" {
			turns++
		}
	}
	if turns < 6000 || turns > 9000 || len(d.ToolUses()) != len(d.ToolResults()) || len(d.Diagnostics()) != 0 {
		t.Fatalf("%d turns, %d uses, %d results, diagnostics %v", turns, len(d.ToolUses()), len(d.ToolResults()), d.Diagnostics()[:min(3, len(d.Diagnostics()))])
	}
	t.Logf("%d bytes, %d messages, %d turns, %d tool uses, %d lines", len(d.Text()), len(d.Messages()), turns, len(d.ToolUses()), d.Lines.LineCount())
}

func BenchmarkParse10MB(b *testing.B) {
	text := bench10MB()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Parse(text)
	}
}

func BenchmarkNewLineIndex10MB(b *testing.B) {
	text := bench10MB()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		NewLineIndex(text).LineCount()
	}
}

// benchEdit types one character and deletes it again, alternately, at the
// given place, so the document does not grow. Each edit applies to the
// previous snapshot, which becomes garbage: the collector's share is
// included.
func benchEdit(b *testing.B, at func(d *Document) int) {
	d := Parse(bench10MB())
	pos := at(d)
	p := d.Lines.Position(pos, UTF16)
	insert := Change{Range: &Range{p, p}, Text: "x"}
	del := Change{Range: &Range{p, Position{p.Line, p.Character + 1}}}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			d = d.Apply([]Change{insert}, UTF16)
		} else {
			d = d.Apply([]Change{del}, UTF16)
		}
	}
}

// Typing in the last You message: the usual place in a chat.
func BenchmarkApplyOneCharEdit10MB(b *testing.B) {
	benchEdit(b, func(d *Document) int { return d.Messages()[len(d.Messages())-1].Span.Start + len("@You:\n") })
}

// Typing at the very end of the document, after the last message's tool
// results: where a prompt is typed and where a model streams.
func BenchmarkApplyOneCharEditEOF10MB(b *testing.B) {
	benchEdit(b, func(d *Document) int { return d.Len() })
}

// Typing in the middle: every later message is shifted.
func BenchmarkApplyOneCharEditMiddle10MB(b *testing.B) {
	benchEdit(b, func(d *Document) int { m := d.Messages()[len(d.Messages())/2]; return m.MarkerSpan.End + 1 })
}

// Typing after the second message: the worst case, every message but two
// follows the edit.
func BenchmarkApplyOneCharEditTop10MB(b *testing.B) {
	benchEdit(b, func(d *Document) int { return d.Messages()[1].Span.End - 1 })
}

// Looking up every tool result by ID, as the server's cycle does.
func BenchmarkToolResultLookup(b *testing.B) {
	d := Parse(bench10MB())
	ids := make([]string, len(d.ToolUses()))
	for i, u := range d.ToolUses() {
		ids[i] = u.ID
	}
	b.ResetTimer()
	for b.Loop() {
		for _, id := range ids {
			if d.ToolResult(id) == nil {
				b.Fatal(id)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/lookup")
}

// Text() of an updated snapshot: joining the pieces, once per snapshot.
func BenchmarkTextJoin10MB(b *testing.B) {
	d := Parse(bench10MB())
	d = d.Replace(Span{d.Len() / 2, d.Len() / 2}, "x")
	b.SetBytes(int64(d.Len()))
	for b.Loop() {
		_ = d.text.String()
	}
}

// The old floor, when Document.Text was one string: copying 10 MB per edit.
func BenchmarkStringSplice10MB(b *testing.B) {
	text := bench10MB()
	mid := len(text) / 2
	for b.Loop() {
		_ = text[:mid] + "x" + text[mid:]
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := chatgen.Generate(50000, 7), chatgen.Generate(50000, 7)
	if a != b || len(a) < 50000 || !strings.HasPrefix(a, "@System:") {
		t.Fatal("generator not deterministic or too short")
	}
	if d := Parse(a); len(d.Diagnostics()) != 0 || len(d.ToolUses()) == 0 {
		t.Fatalf("generated document has problems: %v", d.Diagnostics())
	}
}

// BenchmarkPosition10MB converts offsets of the 10 MB document to UTF-16
// positions, as whole-document requests (symbols, folding) do for every
// node: in document order, 64 bytes apart, and scattered.
func BenchmarkPosition10MB(b *testing.B) {
	d := Parse(bench10MB())
	b.Run("in-order", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			d.Lines.Position(i*64%d.Len(), UTF16)
		}
	})
	b.Run("scattered", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			d.Lines.Position(int(uint64(i)*2654435761%uint64(d.Len())), UTF16)
		}
	})
	b.Run("cursor-in-order", func(b *testing.B) {
		c := d.Lines.Cursor()
		for i := 0; b.Loop(); i++ {
			c.Position(i*64%d.Len(), UTF16)
		}
	})
}

var benchDense10MB = sync.OnceValue(func() string { return chatgen.GenerateDense(benchSize, 1) })

// BenchmarkParseOnceDense10MB is `chatls check`'s parse of the issue-17
// shape (21,704 messages, 16,340 tool uses in 10 MB).
func BenchmarkParseOnceDense10MB(b *testing.B) {
	text := benchDense10MB()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		ParseOnce(text)
	}
}
