package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// The plan finds secrets by name and by inode, and re-scans a directory
// that changed.
func TestSandboxViewPlan(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	testfs.Write(t, filepath.Join(ws, "a", ".env.local"), "x")
	testfs.Write(t, filepath.Join(ws, "ok.txt"), "x")
	testfs.Write(t, filepath.Join(ws, "twin1"), "x")
	os.Link(filepath.Join(ws, "twin1"), filepath.Join(ws, "a", "twin2")) // both names inside, none sensitive
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.MkdirAll(filepath.Join(home, ".aws"), 0o755)
	testfs.Write(t, filepath.Join(home, "Documents", "key"), "k")
	os.Link(filepath.Join(home, "Documents", "key"), filepath.Join(home, "Documents", "id_ed25519"))
	v := planSandboxView([]string{ws}, home)
	want := sandboxView{
		maskFiles: []string{filepath.Join(home, "Documents", "id_ed25519"), filepath.Join(home, "Documents", "key"), filepath.Join(ws, "a", ".env.local")},
		maskDirs:  []string{filepath.Join(home, ".aws")},
		readOnly:  []string{filepath.Join(ws, ".git")},
	}
	slices.Sort(want.maskFiles)
	if strings.Join(v.maskFiles, " ") != strings.Join(want.maskFiles, " ") || strings.Join(v.maskDirs, " ") != strings.Join(want.maskDirs, " ") ||
		strings.Join(v.readOnly, " ") != strings.Join(want.readOnly, " ") {
		t.Errorf("plan:\n got %+v\nwant %+v", v, want)
	}
	// A new link to a file outside appears at the next call (its
	// directory changed).
	os.Link(filepath.Join(home, "Documents", "key"), filepath.Join(ws, "a", "copy"))
	v = planSandboxView([]string{ws}, home)
	if !strings.Contains(strings.Join(v.maskFiles, " "), filepath.Join(ws, "a", "copy")) {
		t.Errorf("the new hard link is not masked: %v", v.maskFiles)
	}
}

func TestSandboxNotes(t *testing.T) {
	for in, want := range map[string]string{
		"bash: line 1: /etc/x: Read-only file system":                                              "[sandbox: write to /etc/x refused]",
		"touch: cannot touch '/usr/y': Read-only file system":                                      "[sandbox: write to /usr/y refused]",
		"curl: (6) Could not resolve host: example.com":                                            "[sandbox: the network is off for this call]",
		"bash: connect: Network is unreachable\nbash: /dev/tcp/1.2.3.4/80: Network is unreachable": "[sandbox: the network is off for this call]",
	} {
		if got := AppendSandboxNotes(in, false); !strings.HasSuffix(got, "\n\n"+want) {
			t.Errorf("%q → %q, want the note %q", in, got, want)
		}
	}
	if got := AppendSandboxNotes("all fine", false); got != "all fine" {
		t.Errorf("a note without a cause: %q", got)
	}
}
