package surface

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
)

// findingsDocument is a conversation of n turns whose tool uses have
// findings every few turns: unknown tools, schema violations, inputs that
// do not parse.
func findingsDocument(n int) string {
	var b strings.Builder
	for i := range n {
		name, input := "read", fmt.Sprintf(`{"path":"f%d.txt"}`, i)
		switch i % 23 {
		case 3:
			name = "raed"
		case 5:
			input = `{"path":1,"extra":true}`
		case 7:
			input = `{"path":`
		}
		fmt.Fprintf(&b, "@You:\nturn %d\n\n@Assistant:\n**Tool Use:** `%s` (`t%d`)\n\n```json\n%s\n```\n\n", i, name, i, input)
	}
	return b.String()
}

// countingInfo counts the validations a registry is asked for.
type countingInfo struct {
	tools.OnTarget
	validations atomic.Int64
}

func (c *countingInfo) ValidateText(name, text string, decode func(string) map[string]any) []tools.ValidationError {
	c.validations.Add(1)
	return c.OnTarget.ValidateText(name, text, decode)
}

// Through random edits — typing in inputs, names and prose, deleting
// across messages — the cache answers exactly what a fresh walk does, and
// an edit near the top validates the uses of the parts it touched, not the
// document's.
func TestToolDiagnosticsCacheEqualsFreshWalk(t *testing.T) {
	reg := tools.NewRegistry(builtin.Tools(builtin.Options{}))
	info := &countingInfo{OnTarget: tools.OnTarget{Registry: reg}}
	doc := chatdoc.Parse(findingsDocument(3000))
	var cache ToolDiagnosticsCache
	check := func(step string) {
		t.Helper()
		got := cache.Diagnostics(doc, info, info.Stamp())
		want := ToolDiagnosticsParallel(doc, tools.OnTarget{Registry: reg}) // over the placed list: another walk
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the cache gives %d diagnostics, a fresh walk %d (or they differ)", step, len(got), len(want))
		}
	}
	check("first")
	if n := info.validations.Load(); n < 2500 {
		t.Fatalf("the first call validated %d inputs, want every valid one", n)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	edit := func(at, end int, text string) {
		r := chatdoc.Range{Start: doc.Lines.Position(at, chatdoc.UTF8), End: doc.Lines.Position(end, chatdoc.UTF8)}
		doc = doc.Apply([]chatdoc.Change{{Range: &r, Text: text}}, chatdoc.UTF8)
	}
	for step := range 60 {
		text := doc.Text()
		at := rng.IntN(len(text))
		switch step % 4 {
		case 0: // into a JSON input, possibly breaking it
			if i := strings.Index(text[at:], `"path":`); i >= 0 {
				at += i + len(`"path":`)
			}
			edit(at, at, []string{`1,`, `"x",`, ` `}[rng.IntN(3)])
		case 1: // a tool name
			if i := strings.Index(text[at:], "`read`"); i >= 0 {
				edit(at+i+1, at+i+2, "w")
			}
		case 2: // across messages
			edit(at, min(len(text), at+rng.IntN(400)), "")
		default: // prose near the top
			edit(40, 40, "x")
		}
		info.validations.Store(0)
		check(fmt.Sprintf("edit %d", step))
		if step%4 == 3 && info.validations.Load() > 300 {
			t.Fatalf("a keystroke near the top validated %d inputs again", info.validations.Load())
		}
	}

	// A tool that appears changes the findings: the stamp forgets them.
	reg.Replace("plugin:x", []tools.Tool{fakeTool{tools.Definition{Name: "raed"}}})
	check("after the tools changed")
}
