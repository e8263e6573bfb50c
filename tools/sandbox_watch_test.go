package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// A cached scan checked by inotify sees every change a directory time
// shows: a secret created, renamed in or removed deep in the tree, and a
// directory replaced.
func TestSandboxScanWatchSeesChanges(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	deep := filepath.Join(ws, "a", "b", "c")
	testfs.Write(t, filepath.Join(deep, "ok.txt"), "x")
	masked := func() []string { return planSandboxView([]string{ws}, home).maskFiles }
	if m := masked(); len(m) != 0 {
		t.Fatalf("masked at first: %v", m)
	}
	scanCache.Lock()
	ts := scanCache.trees[ws+"\x00\x00"]
	scanCache.Unlock()
	if ts == nil || ts.watch == nil || len(ts.dirs) != 0 {
		t.Skipf("no inotify watch here (%v): the directory times are checked", ts)
	}

	secret := filepath.Join(deep, ".env")
	testfs.Write(t, secret, "k")
	if m := masked(); !slices.Contains(m, secret) {
		t.Errorf("new secret not masked: %v", m)
	}
	renamed := filepath.Join(ws, "a", "credentials.txt")
	os.Rename(filepath.Join(deep, "ok.txt"), renamed)
	if m := masked(); !slices.Contains(m, renamed) {
		t.Errorf("renamed-in secret not masked: %v", m)
	}
	os.Remove(secret)
	os.Remove(renamed)
	if m := masked(); len(m) != 0 {
		t.Errorf("removed secrets still masked: %v", m)
	}
	// b replaced by another directory holding a secret.
	other := filepath.Join(t.TempDir(), "b")
	testfs.Write(t, filepath.Join(other, "id_rsa"), "k")
	os.RemoveAll(filepath.Join(ws, "a", "b"))
	if err := os.Rename(other, filepath.Join(ws, "a", "b")); err != nil {
		t.Skip("rename across file systems:", err)
	}
	if m := masked(); !slices.Contains(m, filepath.Join(ws, "a", "b", "id_rsa")) {
		t.Errorf("secret of the replaced directory not masked: %v", m)
	}
}

// A sandboxed call, whose bubblewrap mounts in a namespace of its own, does
// not make the next call scan again: the cached scan stays in use.
func TestSandboxScanStaysCachedAcrossCalls(t *testing.T) {
	requireSandbox(t)
	env := testEnv(t)
	env.Sandbox = SandboxConfig{Enabled: true}
	testfs.Write(t, filepath.Join(env.Dir, "sub", "f.go"), "package x\n")
	key := env.Dir + "\x00\x00"
	run := func(command string) {
		t.Helper()
		cmd, setup, err := SandboxCommand(env, env.Dir, "bash", "-c", command)
		defer setup.Close()
		if err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", command, err, out)
		}
	}
	run("true")
	scanCache.Lock()
	first := scanCache.trees[key]
	scanCache.Unlock()
	run("echo x > sub/out.txt; rm sub/out.txt; true")
	run("true")
	scanCache.Lock()
	third := scanCache.trees[key]
	scanCache.Unlock()
	if first == nil || third == nil {
		t.Fatalf("no cached scan of %s", env.Dir)
	}
	if first.watch == nil {
		t.Skip("no inotify watch here")
	}
	// The second call changed sub/, so the third scanned again; a fourth
	// after an unchanged third must not.
	run("true")
	scanCache.Lock()
	fourth := scanCache.trees[key]
	scanCache.Unlock()
	if fourth != third {
		t.Error("an unchanged tree was scanned again after a sandboxed call")
	}
}
