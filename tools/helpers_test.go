package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/tooltest"
)

// testEnv is a document directory and a temp dir of the test's own.
func testEnv(t testing.TB) Env {
	t.Helper()
	dir := t.TempDir()
	return Env{Dir: dir, WorkspaceRoot: dir, Writable: []string{dir}, TempDir: t.TempDir(), DefaultTimeout: 30, BashTimeout: 30}
}

// builtins are stand-ins for the built-ins with their real definitions,
// from the copy tools/builtin's TestDefinitionsGolden keeps; they run
// nothing (tools/builtin tests the tools themselves).
func builtins(t testing.TB) []Tool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("builtin", "testdata", "definitions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var defs []struct {
		Name, Description, Source, Schema string
		Annotations                       map[string]any
		PaneOnly                          bool
	}
	if err := json.Unmarshal(data, &defs); err != nil {
		t.Fatal(err)
	}
	var out []Tool
	for _, d := range defs {
		if !d.PaneOnly {
			out = append(out, fakeTool{def: Definition{Name: d.Name, Description: d.Description, Source: d.Source,
				Annotations: d.Annotations, Schema: json.RawMessage(d.Schema)}})
		}
	}
	return out
}

func wantText(t *testing.T, res Result, want string) {
	t.Helper()
	if res.Text != want {
		t.Errorf("text = %q\nwant  %q", res.Text, want)
	}
}

func wantContains(t *testing.T, res Result, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(res.Text, p) {
			t.Errorf("text %q\ndoes not contain %q", res.Text, p)
		}
	}
}

// requireSandbox skips or fails t where bubblewrap cannot start.
func requireSandbox(t testing.TB) {
	t.Helper()
	tooltest.RequireSandbox(t, SandboxAvailable(""))
}
