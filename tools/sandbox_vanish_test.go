package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Paths the scan found can be gone when bubblewrap mounts them: another
// program (a test suite cleaning its temporary repositories, a branch
// switch) removed them in between. The call still runs, and nothing is
// created on the host where they were. Before, bubblewrap failed the call
// with "Can't find source path …/.git".
func TestSandboxSurvivesPathsRemovedAfterTheScan(t *testing.T) {
	if err := SandboxAvailable(""); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone")
	for _, d := range []string{".git", ".ssh"} {
		if err := os.MkdirAll(filepath.Join(gone, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(gone, ".env"), []byte("KEY=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env.local"), []byte("KEY=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	writable := []string{dir}
	view := planSandboxView(writable, "")
	for _, want := range []struct {
		list []string
		path string
	}{{view.readOnly, filepath.Join(gone, ".git")}, {view.maskDirs, filepath.Join(gone, ".ssh")}, {view.maskFiles, filepath.Join(gone, ".env")}} {
		if !slices.Contains(want.list, want.path) {
			t.Fatalf("the scan did not find %s: %+v", want.path, view)
		}
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}

	env := Env{Dir: dir, Writable: writable, Sandbox: SandboxConfig{Enabled: true}}
	cmd, err := bwrapCommand(bwrapPath(env), bwrapArgs(env, dir, writable, view, false), []string{"cat", ".env.local"})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the call failed on paths removed after the scan: %v: %s", err, out)
	}
	// The masks that still had something to hide still hide it.
	if len(out) != 0 {
		t.Errorf(".env.local was readable inside: %q", out)
	}
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("bubblewrap recreated %s on the host (%v)", gone, err)
	}
}
