package chatgen_test

import (
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
)

// The figures in docs/performance.md name these documents by their counts;
// a change to the generator would silently change what they measure.
func TestGeneratedShapes(t *testing.T) {
	for _, c := range []struct {
		name           string
		text           string
		messages, uses int
	}{
		{"Generate", chatgen.Generate(10<<20, 1), 15352, 11506},
		{"GenerateDense", chatgen.GenerateDense(10<<20, 1), 21704, 16340},
	} {
		doc := chatdoc.Parse(c.text)
		if got := len(doc.Messages()); got != c.messages {
			t.Errorf("%s: %d messages, want %d", c.name, got, c.messages)
		}
		if got := len(doc.ToolUses()); got != c.uses || len(doc.ToolResults()) != c.uses {
			t.Errorf("%s: %d tool uses and %d results, want %d of each", c.name, got, len(doc.ToolResults()), c.uses)
		}
		if n := len(doc.Diagnostics()); n != 0 {
			t.Errorf("%s: %d diagnostics on a generated document, first %+v", c.name, n, doc.Diagnostics()[0])
		}
	}
}
