package builtin

import (
	"encoding/json"
	"flag"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenDefinition is a definition as testdata/definitions.json keeps it:
// the schema as the exact bytes the model and the editor get.
type goldenDefinition struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Source      string         `json:"source"`
	Annotations map[string]any `json:"annotations,omitempty"`
	Schema      string         `json:"schema"`
	// PaneOnly marks the tools only a target with tmux offers.
	PaneOnly bool `json:"paneOnly,omitempty"`
}

// TestDefinitionsGolden: the built-ins' names, descriptions and schemas
// are what SPEC §5 and users rely on, so a change shows here first; the
// tools package's own tests validate against this copy of them.
func TestDefinitionsGolden(t *testing.T) {
	var defs []goldenDefinition
	for _, tool := range append(Tools(Options{}), paneTools()...) {
		d := tool.Definition()
		_, pane := tool.(tools.PaneOnly)
		defs = append(defs, goldenDefinition{d.Name, d.Description, d.Source, d.Annotations, string(d.Schema), pane})
	}
	b, err := json.MarshalIndent(defs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testfs.Golden(t, "definitions.json", string(b)+"\n", *update)
}
