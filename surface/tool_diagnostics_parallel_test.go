package surface

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
)

// The parallel check (chatls check) finds exactly what the sequential one
// does, in the same order, also across the parts' boundaries.
func TestToolDiagnosticsParallelEqualsSequential(t *testing.T) {
	var b strings.Builder
	b.WriteString("@You:\ngo\n\n@Assistant:\n")
	for i := range 3 * usesPerWorker {
		name, input := "read", fmt.Sprintf(`{"path":"f%d.txt"}`, i)
		switch i % 97 {
		case 3:
			name = "raed" // unknown, with a suggestion
		case 5:
			input = `{"path":1,"extra":true}` // two schema violations
		case 7:
			input = `{"path":` // does not parse: chatdoc's diagnostic
		}
		fmt.Fprintf(&b, "**Tool Use:** `%s` (`t%d`)\n\n```json\n%s\n```\n\n", name, i, input)
	}
	doc := chatdoc.Parse(b.String())
	want := toolDiagnostics(doc, tools.NewRegistry(builtin.Tools(builtin.Options{})))
	got := ToolDiagnosticsParallel(doc, tools.NewRegistry(builtin.Tools(builtin.Options{})))
	if len(want) < 3*usesPerWorker/97*3 {
		t.Fatalf("the document should hold many findings, got %d", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parallel: %d diagnostics, sequential: %d (or a different order)", len(got), len(want))
	}
}
