package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Options too long for a command line go to bubblewrap through a file: the
// command runs with the same mounts, sees no extra descriptor, and the file
// is gone once it started.
func TestBwrapOptionsThroughAFile(t *testing.T) {
	if err := SandboxAvailable(""); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	old := maxInlineArgs
	maxInlineArgs = 0 // every command takes the file route
	t.Cleanup(func() { maxInlineArgs = old })
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir := t.TempDir()
	env := Env{Dir: dir, Writable: []string{dir}, Sandbox: SandboxConfig{Enabled: true}}
	cmd, setup, err := SandboxCommand(env, dir, "bash", "-c", `echo in > inside.txt && echo ok; { echo x > /etc/chatls-args-escape; } 2>/dev/null || echo etc-refused; ls -l /proc/self/fd | tail -n +2 | sed "s/.*[0-9] //"`)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	if filepath.Base(cmd.Path) != "sh" {
		t.Fatalf("not the file route: %v", cmd.Args)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ok\netc-refused\n") {
		t.Fatalf("%v: %q", err, out)
	}
	// bubblewrap closed the descriptor it read its options from.
	if strings.Contains(string(out), "bwrap-args") {
		t.Errorf("the command inherited the options' file:\n%s", out)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(emptyFile()), ".bwrap-args-*"))
	if len(left) > 0 {
		t.Errorf("the options' file was left behind: %v", left)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "inside.txt")); string(b) != "in\n" {
		t.Errorf("inside.txt = %q", b)
	}
}

// Through the options' file, bubblewrap still reports its set-up: a
// command that ran and exited 1 is not a failed set-up, a mount whose
// source is gone is.
func TestSandboxSetupReportedThroughTheOptionsFile(t *testing.T) {
	requireSandbox(t)
	old := maxInlineArgs
	maxInlineArgs = 0
	t.Cleanup(func() { maxInlineArgs = old })
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	env := Env{Dir: dir, Writable: []string{dir}, Sandbox: SandboxConfig{Enabled: true}}
	run := func() (code int, failed bool) {
		t.Helper()
		cmd, setup, err := SandboxCommand(env, dir, "bash", "-c", "exit 1")
		if err != nil {
			t.Fatal(err)
		}
		if setup == nil || filepath.Base(cmd.Path) != "sh" {
			t.Fatalf("not the file route with a status pipe: %v", cmd.Args)
		}
		_ = cmd.Run()
		code = cmd.ProcessState.ExitCode()
		return code, setup.Failed(code, false)
	}
	if code, failed := run(); code != 1 || failed {
		t.Errorf("a command that ran: exit %d, failed set-up %v", code, failed)
	}
	// The real bubblewrap, given one mount more whose source is gone.
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("no bwrap on PATH")
	}
	wrapper := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\ncase \"$*\" in *--args*) exec '" + real + "' --ro-bind /nonexistent-chatls-gone /nonexistent-chatls-gone \"$@\";; esac\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Sandbox.Bwrap = wrapper
	if code, failed := run(); code != 1 || !failed {
		t.Errorf("a set-up that failed: exit %d, failed set-up %v", code, failed)
	}
}
