package approval

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 41, root causes 2 and 7: device paths are resolved like any path,
// and a path that leads into /proc is never resolved in chatls's process
// (its /proc/self is not bash's): writes through them ask, reads of them
// are sensitive. Each command runs in real bash; whatever it changed
// outside the writable set, or whatever canary it printed, must not have
// been approved.
func TestDeviceAndProcPathsAgreeWithBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	f := newFixture(t)
	const canary = "CANARY_7f3a"
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("/proc/self/environ", filepath.Join(f.root, "notes.txt")))
	must(os.Symlink("/dev/fd", filepath.Join(f.root, "fds")))
	e, err := NewEngine(f.sources(t, cfgWrites, "", false, nil), nil)
	must(err)
	cmds := []string{
		// Writes that land outside through a descriptor bash holds.
		"exec 3< ../outside/sub; echo x > /dev/fd/3/../escaped1",
		"echo x 3< ../outside/sub > /dev/fd/3/../escaped1b",
		"{ echo x > /dev/fd/3/../escaped1c; } 3< ../outside/sub",
		"echo x 3< ../outside/sub > /proc/self/fd/3/../escaped2",
		"echo x 3< ../outside/sub > fds/3/../escaped3",
		"printf x 3< ../outside | tee /dev/fd/3/escaped3b",
		"cd ../outside/sub; cd - >/dev/null; echo x > /proc/self/cwd/../outside/escaped4",
		"echo x > /proc/self/root" + filepath.Dir(f.root) + "/outside/escaped5",
		"exec 3< ../outside; echo x | tee /dev/fd/3/escaped6",
		"exec 3< ../outside; cp src/main.go /dev/fd/3/escaped7",
		"echo x > /dev/stdout/../escaped8",
		"echo x > /dev/stderr/../../escaped9",
		"echo x > /dev/null",
		"echo x > /dev/stdout",
		// Reads of the environment of bash and its children.
		"cat /proc/self/environ",
		"cat /dev/fd/../environ",
		"cat /proc/thread-self/environ",
		"cat notes.txt",
		"cat < /proc/self/environ",
		"cat < notes.txt",
		"cd /proc/self && cat environ",
		"cat /proc/1/environ /proc/self/environ",
	}
	for _, cmd := range cmds {
		before := snapshot(filepath.Dir(f.root))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c := exec.CommandContext(ctx, "bash", "-c", cmd)
		c.Dir = f.root
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + f.home, "SECRET=" + canary}
		out, _ := c.CombinedOutput()
		cancel()
		v := e.Decide(context.Background(), Call{ID: "r", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
		if strings.Contains(string(out), canary) && v.Decision == Approve {
			t.Errorf("%q printed the environment's canary, but the policy approved\n%s", cmd, v.Format())
		}
		for p, data := range snapshot(filepath.Dir(f.root)) {
			if old, ok := before[p]; (!ok || old != data) && !strings.HasPrefix(p, f.root+"/") && v.Decision == Approve {
				t.Errorf("%q wrote %s outside the writable set, but the policy approved\n%s", cmd, p, v.Format())
			}
		}
	}
	// Exact harmless names still approve; the read tool asks for /proc.
	for _, cmd := range []string{"echo x > /dev/null", "echo x 2>/dev/stderr"} {
		if v := e.Decide(context.Background(), Call{ID: "r", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision != Approve {
			t.Errorf("%q: got %s, want approve\n%s", cmd, v.Decision, v.Format())
		}
	}
	for _, p := range []string{"/proc/self/environ", "/proc/self/cwd/src/main.go", "notes.txt", "/proc/self/root/etc/hostname", "fds/0"} {
		if v := e.Decide(context.Background(), Call{ID: "r", Tool: "read", Input: map[string]any{"path": p}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision == Approve {
			t.Errorf("read %s: approved", p)
		}
	}
}
