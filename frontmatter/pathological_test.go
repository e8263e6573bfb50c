package frontmatter

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/cputime"
)

// evalTime is the CPU time of parsing text and evaluating its frontmatter
// without the memo (cputime.Cost: the least of five runs, from a collected
// heap).
func evalTime(text string) time.Duration {
	cpu, _ := cputime.Cost(func() { evaluate(chatdoc.Parse(text).Frontmatter) })
	return cpu
}

// assertLinear evaluates gen(n) and gen(8n): linear code takes about 8x as
// long, quadratic 64x. The x24 bound leaves room for a noisy, shared
// machine without letting a quadratic evaluation through.
func assertLinear(t *testing.T, gen func(n int) string, n int, limit time.Duration) {
	t.Helper()
	small, large := gen(n), gen(8*n)
	ts, tl := evalTime(small), evalTime(large)
	t.Logf("%d bytes: %v CPU; %d bytes: %v CPU (x%.1f)", len(small), ts, len(large), tl, float64(tl)/float64(ts))
	if tl > limit {
		t.Fatalf("%d bytes took %v (limit %v)", len(large), tl, limit)
	}
	// Below a millisecond the small run is mostly timer, GC and accounting
	// noise; the ratio says nothing there.
	if ts > time.Millisecond && tl > 24*ts {
		t.Fatalf("not linear: x%.1f for 8x the input", float64(tl)/float64(ts))
	}
}

// Frontmatter is evaluated on every change that touches it, so it must be
// linear: many options, many errors, deep nesting (an error, quickly).
func TestPathologicalFrontmatterIsLinear(t *testing.T) {
	scale := 1
	if testing.Short() {
		scale = 4
	}
	jsonKeys := func(value string) func(n int) string {
		return func(n int) string {
			var b strings.Builder
			b.WriteString("```json\n{\"flemma\": {\n")
			for i := range n {
				fmt.Fprintf(&b, "\"k%d\": %s,\n", i, value)
			}
			b.WriteString("\"last\": 1}}\n```\n@You:\nhi\n")
			return b.String()
		}
	}
	t.Run("JSON frontmatter with many options", func(t *testing.T) {
		assertLinear(t, jsonKeys("[\"a\", \"b\"]"), 3000/scale, 5*time.Second)
	})
	t.Run("JSON frontmatter with many errors", func(t *testing.T) {
		assertLinear(t, jsonKeys("{\"$bad\": 1}"), 3000/scale, 5*time.Second)
	})
	t.Run("JSON frontmatter nested deeper than the limit", func(t *testing.T) {
		assertLinear(t, func(n int) string {
			return "```json\n{\"flemma\":" + strings.Repeat("{\"a\":", n) + "1" + strings.Repeat("}", n+1) + "\n```\n@You:\n"
		}, 20000/scale, 5*time.Second)
	})
	t.Run("JSON frontmatter of brackets only", func(t *testing.T) {
		assertLinear(t, func(n int) string { return "```json\n" + strings.Repeat("[", n) + "\n```\n@You:\n" }, 600000/scale, 5*time.Second)
	})
	t.Run("Lua frontmatter with many options", func(t *testing.T) {
		assertLinear(t, func(n int) string {
			return "```lua\n" + strings.Repeat("flemma.opt.tools.deny:append(\"x\")\n", n) + "```\n@You:\n"
		}, 800/scale, 5*time.Second)
	})
}
