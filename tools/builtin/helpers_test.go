package builtin

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/tools"
)

// testEnv is a document directory and a temp dir of the test's own.
func testEnv(t testing.TB) tools.Env {
	t.Helper()
	dir := t.TempDir()
	return tools.Env{Dir: dir, WorkspaceRoot: dir, Writable: []string{dir}, TempDir: t.TempDir(), DefaultTimeout: 30, BashTimeout: 30}
}

// run executes one call of a built-in through a Runner, as the server does.
func run(t testing.TB, env tools.Env, name string, input map[string]any) tools.Result {
	t.Helper()
	r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
	return r.Run(context.Background(), tools.Call{ID: "t_" + name, Name: name, Input: input}, env)
}

func wantText(t *testing.T, res tools.Result, want string) {
	t.Helper()
	if res.Text != want {
		t.Errorf("text = %q\nwant  %q", res.Text, want)
	}
}

func wantContains(t *testing.T, res tools.Result, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(res.Text, p) {
			t.Errorf("text %q\ndoes not contain %q", res.Text, p)
		}
	}
}

// waitUntil polls a condition of the runner's own state (no sleeping for events).
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		runtime.Gosched()
	}
}
