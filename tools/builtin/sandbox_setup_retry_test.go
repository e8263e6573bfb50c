package builtin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// flakyBwrap is a bubblewrap for sandbox.bwrap that is the real one, given
// for its first failing calls one mount whose source is gone: a real
// set-up failure of bubblewrap ("Can't find source path …"), as a path
// removed by another program while bubblewrap mounts gives. Only calls
// with their status on fd 3 (the tool's, not the availability probe's,
// which writes it to its stdout) count; failures is how many fail.
func flakyBwrap(t *testing.T, failures int) (path, calls string) {
	t.Helper()
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("no bwrap")
	}
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	script := `#!/bin/sh
prev=
for a in "$@"; do
  if [ "$prev" = --json-status-fd ] && [ "$a" = 3 ]; then
    echo x >> '` + calls + `'
    if [ "$(wc -l < '` + calls + `')" -le ` + string(rune('0'+failures)) + ` ]; then
      exec '` + real + `' --ro-bind /nonexistent-chatls-gone /nonexistent-chatls-gone "$@"
    fi
  fi
  prev=$a
done
exec '` + real + `' "$@"
`
	path = filepath.Join(dir, "bwrap")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, calls
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// A call whose sandbox bubblewrap could not set up (a path it mounts gone
// meanwhile) never started the command: it is started again on a fresh
// scan and runs once, its result carrying nothing of the failed tries. A
// set-up that keeps failing is tried setupTries times, then reported with
// bubblewrap's own error; the command never ran.
func TestSandboxSetupFailureIsTriedAgain(t *testing.T) {
	requireSandbox(t)
	for _, c := range []struct {
		failures, runs, starts int
	}{{2, 1, 3}, {9, 0, setupTries}} {
		env := sandboxEnv(t)
		var calls string
		env.Sandbox.Bwrap, calls = flakyBwrap(t, c.failures)
		marker := filepath.Join(env.Dir, "ran")
		res := run(t, env, "bash", map[string]any{"command": "echo once >> " + marker + "; echo done"})
		ran := !res.IsError && strings.HasPrefix(res.Text, "done") && !strings.Contains(res.Text, "bwrap")
		reported := res.IsError && strings.Contains(res.Text, "bwrap: Can't find source path /nonexistent-chatls-gone")
		if (c.runs == 1 && !ran) || (c.runs == 0 && !reported) {
			t.Errorf("%d failed set-ups: result %q", c.failures, res.Text)
		}
		if n := countLines(t, marker); n != c.runs {
			t.Errorf("%d failed set-ups: the command ran %d times, want %d", c.failures, n, c.runs)
		}
		if n := countLines(t, calls); n != c.starts {
			t.Errorf("%d failed set-ups: bubblewrap started %d times, want %d", c.failures, n, c.starts)
		}
	}
}

// A command that started and failed is never run again, even when it
// prints what bubblewrap prints and exits as bubblewrap does: only
// bubblewrap's status says the command did not start.
func TestCommandThatLooksLikeASetupFailureRunsOnce(t *testing.T) {
	requireSandbox(t)
	env := sandboxEnv(t)
	marker := filepath.Join(env.Dir, "ran")
	res := run(t, env, "bash", map[string]any{"command": "echo once >> " + marker + "; echo 'bwrap: Can not mount' >&2; exit 1"})
	if !res.IsError || !strings.Contains(res.Text, "bwrap: Can not mount") || !strings.Contains(res.Text, "Command exited with code 1") {
		t.Fatalf("result %q", res.Text)
	}
	if n := countLines(t, marker); n != 1 {
		t.Errorf("the command ran %d times", n)
	}
}
