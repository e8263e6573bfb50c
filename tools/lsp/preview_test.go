package lsp

import (
	"testing"

	"github.com/chatls/chatls/tools"
)

// The LSP tools' previews (SPEC §3): the file, and the position.
func TestPreviews(t *testing.T) {
	for _, c := range []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"diagnostics", map[string]any{"path": "main.go"}, "diagnostics: main.go"},
		{"symbols", map[string]any{"path": "main.go", "query": nil}, "symbols: main.go"},
		{"symbols", map[string]any{"path": "main.go", "query": "Serve"}, "symbols: main.go  query Serve"},
		{"symbols", map[string]any{"query": "Serve"}, "symbols: query Serve"},
		{"hover", map[string]any{"path": "a.go", "line": 3.0, "column": 7.0, "label": "type"}, "hover: a.go:3:7  # type"},
		{"definition", map[string]any{"path": "a.go", "line": 3.0}, "definition: a.go:3:0"},
		{"references", map[string]any{}, "references: :0:0"},
	} {
		def := tools.Definition{Name: c.name, Source: "builtin"}
		if got := tools.Preview(def, c.input, 0); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.name, c.input, got, c.want)
		}
	}
}
