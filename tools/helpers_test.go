package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// testEnv is a document directory and a temp dir of the test's own.
func testEnv(t testing.TB) Env {
	t.Helper()
	dir := t.TempDir()
	return Env{Dir: dir, WorkspaceRoot: dir, Writable: []string{dir}, TempDir: t.TempDir(), DefaultTimeout: 30, BashTimeout: 30}
}

// run executes one call of a built-in through a Runner, as the server does.
func run(t testing.TB, env Env, name string, input map[string]any) Result {
	t.Helper()
	r := NewRunner(NewRegistry(Builtins(BuiltinOptions{})))
	return r.Run(context.Background(), Call{ID: "t_" + name, Name: name, Input: input}, env)
}

// decode turns a JSON literal into a tool input, as the document parser does.
func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test input %s: %v", s, err)
	}
	return m
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
