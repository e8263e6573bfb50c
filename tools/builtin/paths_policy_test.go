package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/fspath"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
)

// The path the policy decides on is the path the tool writes (issue: with
// link → /allowed/sub, "link/../x" was approved as /allowed/x and written
// as doc/x; with a link into a subdirectory, "a/../../x" was approved
// inside the workspace and written outside it).
func TestPolicyAndWriteToolAgreeOnPaths(t *testing.T) {
	base, _ := fspath.Resolve(t.TempDir())
	ws, allowed, outside := filepath.Join(base, "ws"), filepath.Join(base, "allowed"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(allowed, "sub"), filepath.Join(ws, "deep", "er"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Symlink(filepath.Join(allowed, "sub"), filepath.Join(ws, "link")))
	must(t, os.Symlink(filepath.Join("deep", "er"), filepath.Join(ws, "a")))
	doc := filepath.Join(ws, "doc.chat")
	engine, err := approval.NewEngine(approval.Sources{
		User:    config.Settings{Tools: config.Tools{AutoApprove: []string{"$default"}}, Sandbox: config.Sandbox{Writable: []string{allowed}}},
		DocPath: doc, WorkspaceRoot: ws, TempDir: filepath.Join(base, "tmp"), Home: filepath.Join(base, "home"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := tools.Env{Dir: ws, WorkspaceRoot: ws, Writable: []string{ws, allowed}, RestrictWrites: true, TempDir: t.TempDir()}
	reg := tools.NewRegistry(builtin.Tools(builtin.Options{}))
	runner := tools.NewRunner(reg)
	for _, c := range []struct {
		path, lands string
	}{
		{"link/../x", filepath.Join(allowed, "x")},
		{"a/../../y", filepath.Join(ws, "y")},
		{"a/../../../z", filepath.Join(base, "z")}, // outside the writable set: asked, and refused when restricted
	} {
		input := map[string]any{"path": c.path, "content": "data"}
		v := engine.Decide(context.Background(), approval.Call{ID: "w", Tool: "write", Input: input, DocPath: doc, WorkspaceRoot: ws})
		inside := fspath.WithinAny(c.lands, []string{ws, allowed})
		if (v.Decision == approval.Approve) != inside {
			t.Errorf("%s lands in %s: decision %s\n%s", c.path, c.lands, v.Decision, v.Format())
		}
		res := runner.Run(context.Background(), tools.Call{ID: "w", Name: "write", Input: input}, env)
		_, statErr := os.Stat(c.lands)
		if inside && (res.IsError || statErr != nil) {
			t.Errorf("%s: the write must land in %s: %s", c.path, c.lands, res.Text)
		}
		if !inside && (!res.IsError || statErr == nil) {
			t.Errorf("%s: a write outside the writable set must be refused: %s", c.path, res.Text)
		}
	}
	for _, wrong := range []string{filepath.Join(ws, "x"), filepath.Join(base, "y")} {
		if _, err := os.Stat(wrong); err == nil {
			t.Errorf("a write landed in %s, where no decision was made", wrong)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Searching above a directory the policy denies reading skips it: grep,
// find and ls never show what is under private/ (Env.Hidden).
func TestSearchesSkipHiddenPaths(t *testing.T) {
	ws, _ := fspath.Resolve(t.TempDir())
	for _, f := range []string{"private/key.txt", "public/a.txt", "private/deep/b.txt"} {
		p := filepath.Join(ws, f)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("needle\n"), 0o644))
	}
	hidden := func(p string) bool { return fspath.Within(p, filepath.Join(ws, "private")) }
	env := tools.Env{Dir: ws, WorkspaceRoot: ws, Hidden: hidden, TempDir: t.TempDir()}
	runner := tools.NewRunner(tools.NewRegistry(builtin.Tools(builtin.Options{})))
	for _, c := range []tools.Call{
		{ID: "g", Name: "grep", Input: map[string]any{"pattern": "needle", "path": nil, "glob": nil, "limit": nil}},
		{ID: "f", Name: "find", Input: map[string]any{"pattern": "**/*.txt", "path": nil, "limit": nil}},
		{ID: "l", Name: "ls", Input: map[string]any{"path": nil, "maxDepth": 3, "limit": nil}},
	} {
		res := runner.Run(context.Background(), c, env)
		if res.IsError || !strings.Contains(res.Text, "a.txt") {
			t.Errorf("%s: %s", c.Name, res.Text)
		}
		if strings.Contains(res.Text, "key.txt") || strings.Contains(res.Text, "b.txt") {
			t.Errorf("%s shows a hidden path:\n%s", c.Name, res.Text)
		}
	}
}
