package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A bubblewrap older than 0.4 has no --json-status-fd: it still sandboxes
// every call (the probe passes, the command runs), only without a status
// pipe, so a failed set-up is not tried again.
func TestOldBubblewrapWithoutStatusStillSandboxes(t *testing.T) {
	requireSandbox(t)
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("no bwrap on PATH")
	}
	old := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --json-status-fd ] && { echo 'bwrap: Unknown option --json-status-fd' >&2; exit 1; }; done\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ProbeSandbox(old); err != nil {
		t.Fatalf("the probe refused an old bubblewrap: %v", err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	env := Env{Dir: dir, Writable: []string{dir}, Sandbox: SandboxConfig{Enabled: true, Bwrap: old}}
	cmd, setup, err := SandboxCommand(env, dir, "bash", "-c", "echo inside > f && cat f")
	if err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		t.Error("a status pipe for a bubblewrap that cannot write it")
	}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "inside\n" {
		t.Fatalf("%v: %q", err, out)
	}
	// The bubblewrap that has it gets the pipe.
	if err := ProbeSandbox(real); err != nil {
		t.Fatal(err)
	}
	env.Sandbox.Bwrap = real
	_, setup, err = SandboxCommand(env, dir, "true")
	if err != nil || setup == nil {
		t.Fatalf("no status pipe for bubblewrap %s (%v)", real, err)
	}
	setup.Close()
}
