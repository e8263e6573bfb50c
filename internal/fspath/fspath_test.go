package fspath

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The two defects this package exists for: with link → /allowed/sub,
// "link/../x" is /allowed/x (not the link's own directory); with a link
// into a subdirectory, "a/../../x" leaves the workspace.
func TestDotDotAfterASymlinkFollowsTheTarget(t *testing.T) {
	base := t.TempDir()
	allowed, ws := filepath.Join(base, "allowed"), filepath.Join(base, "ws")
	for _, d := range []string{filepath.Join(allowed, "sub"), filepath.Join(ws, "deep", "er")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Symlink(filepath.Join(allowed, "sub"), filepath.Join(ws, "link")))
	must(t, os.Symlink("deep/er", filepath.Join(ws, "a")))
	for p, want := range map[string]string{
		"link/../x":    filepath.Join(allowed, "x"),
		"a/../../x":    filepath.Join(ws, "x"), // a → deep/er; er/.. = deep; deep/.. = ws
		"a/../../../x": filepath.Join(base, "x"),
		"nope/../x":    filepath.Join(ws, "x"),
		"./link/./y":   filepath.Join(allowed, "sub", "y"),
	} {
		got, err := Canonical(p, ws, "/home/u")
		if err != nil || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	if got, _ := Canonical("~/.env", ws, "/nonexistent-home"); got != "/nonexistent-home/.env" {
		t.Errorf("~ expands to home: %q", got)
	}
	must(t, os.Symlink("loop2", filepath.Join(ws, "loop1")))
	must(t, os.Symlink("loop1", filepath.Join(ws, "loop2")))
	if _, err := Canonical("loop1/x", ws, ""); !errors.Is(err, ErrLoop) {
		t.Errorf("a loop: %v", err)
	}
}

// Property: for random trees of directories, files and symlinks (relative,
// absolute, dangling, looping) and random relative paths, Resolve names the
// file the kernel opens — and the file the kernel creates when the last
// component does not exist yet. The policy decides on Resolve's answer and
// the tools touch it, so this is "the path decided on is the path touched".
func TestResolveAgreesWithTheKernel(t *testing.T) {
	seed := uint64(rand.Uint32())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	checked := 0
	for tree := 0; tree < 60; tree++ {
		root := t.TempDir()
		names := buildTree(t, rng, root)
		base := filepath.Join(root, names[rng.IntN(len(names))])
		if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
			base = root
		}
		for i := 0; i < 80; i++ {
			rel := randomPath(rng, names)
			if compareWithKernel(t, base, rel) {
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d paths could be compared; the generator is too weak", checked)
	}
}

// compareWithKernel checks one path; it reports whether the kernel could
// resolve it (otherwise there is nothing to compare).
func compareWithKernel(t *testing.T, base, rel string) bool {
	raw := base + "/" + rel // not cleaned: the kernel resolves it
	got, err := Resolve(raw)
	var kernel syscall.Stat_t
	kerr := syscall.Stat(raw, &kernel)
	switch {
	case errors.Is(kerr, syscall.ELOOP):
		if err == nil {
			// The kernel counts nested links differently in corner cases;
			// what matters is that no resolved path lies about the kernel's.
			return false
		}
		return true
	case kerr == nil:
		var ours syscall.Stat_t
		if err != nil || syscall.Stat(got, &ours) != nil || ours.Ino != kernel.Ino || ours.Dev != kernel.Dev {
			t.Errorf("%s: Resolve = %q (%v), which is not the file the kernel opens", raw, got, err)
		}
		return true
	case errors.Is(kerr, syscall.ENOENT) && err == nil:
		// Create it through the kernel: the new file must be Resolve's.
		fd, cerr := syscall.Open(raw, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY, 0o600)
		if cerr != nil {
			return false // a middle component is missing: the kernel cannot create it at all
		}
		syscall.Close(fd)
		defer os.Remove(got)
		var created, ours syscall.Stat_t
		syscall.Stat(raw, &created)
		if syscall.Stat(got, &ours) != nil || ours.Ino != created.Ino {
			t.Errorf("%s: the kernel created another file than Resolve's %q", raw, got)
		}
		os.Remove(raw)
		return true
	}
	return false
}

// buildTree makes directories, files and symlinks under root and returns
// the names used (for random paths).
func buildTree(t *testing.T, rng *rand.Rand, root string) []string {
	names := []string{"a", "b", "c", "d", "e"}
	var dirs = []string{root}
	for i := 0; i < 6; i++ {
		d := filepath.Join(dirs[rng.IntN(len(dirs))], names[rng.IntN(len(names))])
		if os.MkdirAll(d, 0o755) == nil {
			dirs = append(dirs, d)
		}
	}
	for i := 0; i < 4; i++ {
		f := filepath.Join(dirs[rng.IntN(len(dirs))], names[rng.IntN(len(names))]+".txt")
		os.WriteFile(f, []byte("x"), 0o644)
	}
	for i := 0; i < 8; i++ {
		at := filepath.Join(dirs[rng.IntN(len(dirs))], names[rng.IntN(len(names))])
		var target string
		switch rng.IntN(5) {
		case 0: // absolute, inside
			target = dirs[rng.IntN(len(dirs))]
		case 1: // relative with ..
			target = strings.Repeat("../", rng.IntN(3)) + names[rng.IntN(len(names))]
		case 2: // dangling
			target = "missing-" + names[rng.IntN(len(names))]
		case 3: // to another link name (chains, loops)
			target = names[rng.IntN(len(names))]
		default: // relative down
			target = names[rng.IntN(len(names))] + "/" + names[rng.IntN(len(names))]
		}
		os.Symlink(target, at) // fails harmlessly where the name exists
	}
	return append(names, "a.txt", "b.txt")
}

func randomPath(rng *rand.Rand, names []string) string {
	n := 1 + rng.IntN(5)
	parts := make([]string, n)
	for i := range parts {
		switch r := rng.IntN(10); {
		case r < 2:
			parts[i] = ".."
		case r < 3:
			parts[i] = "."
		case r < 4:
			parts[i] = fmt.Sprintf("new%d", rng.IntN(3))
		default:
			parts[i] = names[rng.IntN(len(names))]
		}
	}
	return strings.Join(parts, "/")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Operations through Open stay inside the directory decided on, even when
// a component becomes a symlink out of it afterwards.
func TestOpenRefusesAnEscapeAfterTheDecision(t *testing.T) {
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	must(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	must(t, os.MkdirAll(outside, 0o755))
	p, _ := Canonical("sub/file", ws, "")
	// Decided: ws/sub/file. Then sub is swapped for a link to outside.
	must(t, os.Remove(filepath.Join(ws, "sub")))
	must(t, os.Symlink(outside, filepath.Join(ws, "sub")))
	root, rel, err := Open(ws, p)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := root.WriteFile(rel, []byte("x"), 0o644); err == nil {
		t.Fatal("wrote through a symlink out of the root")
	}
	if _, err := os.Stat(filepath.Join(outside, "file")); err == nil {
		t.Fatal("the file landed outside")
	}
}
