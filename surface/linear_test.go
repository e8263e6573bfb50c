package surface

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/cputime"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
)

// Adversarial documents of size n (a hostile model or client): each
// answer must cost time and memory linear in n. At 4n a linear answer
// costs about 4x, a quadratic one 16x; the bounds (x8 for CPU time, which
// other test binaries on a 2-core machine disturb; x6 for memory, which
// nothing does) leave room for noise and still catch a quadratic answer.
var adversarial = map[string]func(n int) string{
	"deep nesting": func(n int) string {
		return call("calculator", `{"expression":"1","x":`+strings.Repeat("[", n)+strings.Repeat("]", n)+`}`)
	},
	"many keys": func(n int) string {
		var b strings.Builder
		b.WriteString(`{"expression":"1"`)
		for i := range n {
			fmt.Fprintf(&b, `,"k%d":%d`, i, i)
		}
		return call("calculator", b.String()+"}")
	},
	"huge string": func(n int) string {
		return call("write", `{"path":"x","content":"`+strings.Repeat("ab\\n", n*30)+`"}`)
	},
	"many messages": func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "@You:\nquestion %d\n\n@Assistant:\nanswer %d\n\n", i, i)
		}
		return b.String()
	},
}

func call(name, input string) string {
	return "@You:\nq\n\n@Assistant:\n**Tool Use:** `" + name + "` (`t1`)\n\n```json\n" + input + "\n```\n\n@You:\n"
}

// answers are the surface's answers that read a whole document or input.
func answers(reg ToolInfo) map[string]func(doc *chatdoc.Document) {
	return map[string]func(doc *chatdoc.Document){
		"diagnostics":     func(doc *chatdoc.Document) { toolDiagnostics(doc, reg) },
		"symbols":         func(doc *chatdoc.Document) { DocumentSymbols(doc, chatdoc.UTF16, nil) },
		"folding":         func(doc *chatdoc.Document) { FoldingRanges(doc, chatdoc.UTF16) },
		"semantic tokens": func(doc *chatdoc.Document) { SemanticTokens(doc, chatdoc.UTF16) },
		"hover": func(doc *chatdoc.Document) {
			for _, u := range doc.ToolUses() {
				HoverMarkdown(HoverInfo{Tool: tools.Definition{Name: u.Name}, Known: true, Input: u.Input(), RawInput: u.RawInput})
			}
		},
	}
}

func TestAnswersAreLinearOnAdversarialInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time")
	}
	reg := tools.NewRegistry(builtin.Tools(builtin.Options{}))
	sizes := map[string]int{"deep nesting": 20000, "many keys": 4000, "huge string": 20000, "many messages": 25000}
	for input, gen := range adversarial {
		small, large := chatdoc.Parse(gen(sizes[input])), chatdoc.Parse(gen(4*sizes[input]))
		for name, answer := range answers(reg) {
			// Small and large alternate, so a burst of load from the other
			// test binaries sharing the machine falls on both sizes.
			ts, tl := time.Duration(1<<62), time.Duration(1<<62)
			var ms, ml uint64
			for range 2 {
				var t time.Duration
				t, ms = cputime.Cost(func() { answer(small) })
				ts = min(ts, t)
				t, ml = cputime.Cost(func() { answer(large) })
				tl = min(tl, t)
			}
			t.Logf("%s / %s: %v, %d KB → %v, %d KB", input, name, ts, ms>>10, tl, ml>>10)
			if tl > 5*time.Second {
				t.Errorf("%s / %s: %v at %d bytes", input, name, tl, large.Len())
			}
			// Below a millisecond the small run is mostly noise.
			if ts > time.Millisecond && tl > 8*ts {
				t.Errorf("%s / %s: time grew x%.1f for 4x the input", input, name, float64(tl)/float64(ts))
			}
			if ms > 1<<20 && ml > 6*ms {
				t.Errorf("%s / %s: memory grew x%.1f for 4x the input", input, name, float64(ml)/float64(ms))
			}
		}
	}
}
