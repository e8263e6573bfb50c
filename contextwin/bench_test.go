package contextwin

import (
	"sync"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
)

// The 10 MB conversation of docs/performance.md (chatgen.Generate(10<<20,
// 1)), parsed once, and the snapshot a keystroke near its top makes.
var big = sync.OnceValues(func() (*chatdoc.Document, *chatdoc.Document) {
	d := chatdoc.Parse(chatgen.Generate(10<<20, 1))
	return d, d.Replace(chatdoc.Span{Start: 40, End: 40}, "x")
})

// lastAnswer is a count for the document's last `@Assistant:` message.
func lastAnswer(d *chatdoc.Document) *LastUsage {
	for i := d.MessageCount() - 1; i >= 0; i-- {
		if s := d.MessageSpan(i); d.Slice(s.Start, s.Start+11) == "@Assistant:" {
			return &LastUsage{InputTokens: 150000, At: s.Start}
		}
	}
	return nil
}

// BenchmarkEstimateAfterKeystroke is the estimate on the snapshot a
// keystroke near the top of the 10 MB document made (its parts shared with
// the snapshot before, moved): it reads message offsets, not the text.
func BenchmarkEstimateAfterKeystroke(b *testing.B) {
	_, typed := big()
	files := Estimator{FileTokens: func(*chatdoc.FileRef) int { return 100 }}
	last := lastAnswer(typed)
	for _, bm := range []struct {
		name string
		e    Estimator
		last *LastUsage
	}{
		{"counted", Estimator{}, last},
		{"counted+files", files, last},
		{"uncounted", Estimator{}, nil},
		{"uncounted+files", files, nil},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				bm.e.Estimate(typed, bm.last)
			}
		})
	}
}

// BenchmarkCompact is compaction's own work on the 10 MB document, the
// model's summary aside: the cut (keeping 50k tokens, a quarter of a 200k
// window), the archive, the edit and the new text.
func BenchmarkCompact(b *testing.B) {
	parsed, typed := big()
	for _, bm := range []struct {
		name string
		d    *chatdoc.Document
	}{{"parsed", parsed}, {"afterKeystroke", typed}} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				cut, err := CutPoint(bm.d, 50000)
				if err != nil {
					b.Fatal(err)
				}
				c, err := Compact(bm.d, cut, "big.archive-1.chat", "A summary.")
				if err != nil {
					b.Fatal(err)
				}
				_ = c.Apply(bm.d)
			}
		})
	}
}

// BenchmarkSummaryRequest is the request text for that cut, verbatim and
// shortened to a 200k budget.
func BenchmarkSummaryRequest(b *testing.B) {
	d, _ := big()
	cut, err := CutPoint(d, 50000)
	if err != nil {
		b.Fatal(err)
	}
	for _, budget := range []int{0, 200000} {
		b.Run(map[int]string{0: "verbatim", 200000: "budget200k"}[budget], func(b *testing.B) {
			for b.Loop() {
				SummaryRequest(d, cut, budget)
			}
		})
	}
}

// BenchmarkTrim is "Trim old tool outputs" on the dense 10 MB document,
// whose outputs are small: the walk over every result is the cost.
func BenchmarkTrim(b *testing.B) {
	d, _ := big()
	for b.Loop() {
		Trim(d, 50000, "big.archive-1.chat")
	}
}
