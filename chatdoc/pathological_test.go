package chatdoc

import (
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/cputime"
)

// parseTime is the least CPU time of five parses. CPU time (this process's,
// from getrusage: the test runs alone in it, and a large parse's second
// core counts too) is what a quadratic parser would blow up; unlike wall
// time it does not grow when other processes take the cores, which on a
// loaded CI machine made a linear parse look x38.
// Each parse starts from a collected heap with the collector off, so the
// garbage of one parse is never collected (and counted) during the next.
func parseTime(text string) time.Duration {
	cpu, _ := cputime.Cost(func() { Parse(text) })
	return cpu
}

// assertLinear parses gen(n) and gen(8n): a linear parser takes about 8x as
// long, a quadratic one 64x. The x24 bound leaves room for a noisy, shared
// machine without letting a quadratic parser through.
func assertLinear(t *testing.T, gen func(n int) string, n int, limit time.Duration) {
	t.Helper()
	small, large := gen(n), gen(8*n)
	ts, tl := parseTime(small), parseTime(large)
	t.Logf("%d bytes: %v CPU; %d bytes: %v CPU (x%.1f)", len(small), ts, len(large), tl, float64(tl)/float64(ts))
	if tl > limit {
		t.Fatalf("%d bytes took %v (limit %v)", len(large), tl, limit)
	}
	// Below a millisecond the small parse is mostly timer, GC and
	// accounting noise; the ratio says nothing there.
	if ts > time.Millisecond && tl > 24*ts {
		t.Fatalf("not linear: x%.1f for 8x the input", float64(tl)/float64(ts))
	}
}

func TestPathologicalInputsAreLinear(t *testing.T) {
	scale := 1
	if testing.Short() {
		scale = 8
	}
	t.Run("10 MB single line", func(t *testing.T) {
		assertLinear(t, func(n int) string { return "@You: " + strings.Repeat("a`@*<", n/5) }, 10<<20/8/scale, 5*time.Second)
	})
	t.Run("100,000 tiny messages", func(t *testing.T) {
		assertLinear(t, func(n int) string { return strings.Repeat("@You:\nx\n@Assistant:\ny\n", n/2) }, 100000/8/scale, 5*time.Second)
	})
	t.Run("10,000 nested fence openers", func(t *testing.T) {
		assertLinear(t, func(n int) string {
			var b strings.Builder
			b.WriteString("@Assistant:\n")
			for i := range n {
				b.WriteString(strings.Repeat("`", 3+i%40) + "json\n**Tool Use:** `a` (`b`)\n@You:\n")
			}
			return b.String()
		}, 10000/8/max(1, scale/4), 5*time.Second)
	})
	t.Run("many tool headers waiting for fences", func(t *testing.T) {
		assertLinear(t, func(n int) string {
			return "@Assistant:\n" + strings.Repeat("**Tool Use:** `a` (`b`)\n\n", n)
		}, 20000/2/scale, 5*time.Second)
	})
	t.Run("unclosed thinking and huge JSON", func(t *testing.T) {
		assertLinear(t, func(n int) string {
			return "@Assistant:\n<thinking>\n" + strings.Repeat("@Your:\n", n) + "**Tool Use:** `a` (`b`)\n```json\n[" +
				strings.Repeat("[", n) + "\n```\n"
		}, 100000/2/scale, 5*time.Second)
	})
}

func TestInvalidUTF8AndControlBytes(t *testing.T) {
	text := "@You:\n\xff\xfe\x00 @./\xc3(\n@Assistant:\n**Tool Use:** `\xff` (`\xfe`)\n```json\n{\"a\":\"\xff\"}\n```\n"
	d := Parse(text)
	checkInvariants(t, d)
	if d.Text() != text || len(d.ToolUses()) != 1 {
		t.Fatalf("uses %d", len(d.ToolUses()))
	}
	for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
		for off := 0; off <= len(text); off++ {
			if o := d.Lines.Offset(d.Lines.Position(off, enc), enc); o > off {
				t.Fatalf("offset %d -> %d", off, o)
			}
		}
	}
}
