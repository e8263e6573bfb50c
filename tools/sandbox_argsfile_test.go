package tools

import (
	"os"
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
	cmd, err := SandboxCommand(env, dir, "bash", "-c", `echo in > inside.txt && echo ok; { echo x > /etc/chatls-args-escape; } 2>/dev/null || echo etc-refused; ls -l /proc/self/fd | tail -n +2 | sed "s/.*[0-9] //"`)
	if err != nil {
		t.Fatal(err)
	}
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
