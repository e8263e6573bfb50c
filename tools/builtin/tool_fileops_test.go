package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/internal/tooltest"
)

func TestMkdirCopyMoveDelete(t *testing.T) {
	env := testEnv(t)
	at := func(p string) string { return filepath.Join(env.Dir, p) }
	wantText(t, run(t, env, "mkdir", tooltest.Decode(t, `{"path":"a/b/c"}`)), "Created directory a/b/c")
	if fi, err := os.Stat(at("a/b/c")); err != nil || !fi.IsDir() {
		t.Fatalf("mkdir: %v", err)
	}
	wantText(t, run(t, env, "mkdir", tooltest.Decode(t, `{"path":"a/b/c"}`)), "Created directory a/b/c")

	testfs.Write(t, at("a/x.sh"), "#!/bin/sh\n")
	os.Chmod(at("a/x.sh"), 0o755)
	wantText(t, run(t, env, "copy", tooltest.Decode(t, `{"source":"a","destination":"b"}`)), "Copied a to b")
	if fi, err := os.Stat(at("b/x.sh")); err != nil || fi.Mode().Perm() != 0o755 || !exists(at("b/b/c")) {
		t.Fatalf("copy of a tree: %v %v", fi, err)
	}
	res := run(t, env, "copy", tooltest.Decode(t, `{"source":"a/x.sh","destination":"b/x.sh"}`))
	if !res.IsError || res.Text != "b/x.sh already exists: set overwrite to true to replace it" {
		t.Fatalf("overwrite refused: %q", res.Text)
	}
	res = run(t, env, "copy", tooltest.Decode(t, `{"source":"a","destination":"a/inner"}`))
	if !res.IsError || !strings.HasPrefix(res.Text, "Cannot put a inside itself") {
		t.Fatalf("into itself: %q", res.Text)
	}

	wantText(t, run(t, env, "move", tooltest.Decode(t, `{"source":"b/x.sh","destination":"c/y.sh"}`)), "Moved b/x.sh to c/y.sh")
	if exists(at("b/x.sh")) || !exists(at("c/y.sh")) {
		t.Fatal("move did not move")
	}
	testfs.Write(t, at("keep.txt"), "keep")
	res = run(t, env, "move", tooltest.Decode(t, `{"source":"c/y.sh","destination":"keep.txt"}`))
	if !res.IsError || !exists(at("c/y.sh")) {
		t.Fatalf("move over a file without overwrite: %q", res.Text)
	}
	wantText(t, run(t, env, "move", tooltest.Decode(t, `{"source":"c/y.sh","destination":"keep.txt","overwrite":true}`)), "Moved c/y.sh to keep.txt")
	if b, _ := os.ReadFile(at("keep.txt")); string(b) != "#!/bin/sh\n" {
		t.Fatalf("overwritten move: %q", b)
	}

	res = run(t, env, "delete", tooltest.Decode(t, `{"path":"b"}`))
	if !res.IsError || !strings.Contains(res.Text, "set recursive to true") || !exists(at("b")) {
		t.Fatalf("a directory without recursive: %q", res.Text)
	}
	wantText(t, run(t, env, "delete", tooltest.Decode(t, `{"path":"b","recursive":true}`)), "Deleted directory b (2 entries)")
	wantText(t, run(t, env, "delete", tooltest.Decode(t, `{"path":"keep.txt"}`)), "Deleted keep.txt")
	if exists(at("b")) || exists(at("keep.txt")) {
		t.Fatal("delete left something")
	}
	res = run(t, env, "delete", tooltest.Decode(t, `{"path":"gone.txt"}`))
	if !res.IsError || res.Text != "Cannot delete gone.txt: no such file or directory" {
		t.Fatalf("missing: %q", res.Text)
	}
}

// Every path they change follows the write rules: outside the writable set
// nothing is touched when writes are restricted, and a symlink does not
// carry a delete out of it.
func TestFileOpsFollowTheWriteRules(t *testing.T) {
	env := testEnv(t)
	env.RestrictWrites = true
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	testfs.Write(t, victim, "keep")
	testfs.Write(t, filepath.Join(env.Dir, "mine.txt"), "mine")
	os.Symlink(outside, filepath.Join(env.Dir, "link"))
	for _, in := range []string{
		`{"path":"` + victim + `"}`,
		`{"path":"link/victim.txt"}`,
	} {
		if res := run(t, env, "delete", tooltest.Decode(t, in)); !res.IsError || !strings.HasPrefix(res.Text, "Refusing to write") {
			t.Errorf("delete %s: %q", in, res.Text)
		}
	}
	if res := run(t, env, "move", tooltest.Decode(t, `{"source":"`+victim+`","destination":"stolen.txt"}`)); !res.IsError {
		t.Errorf("move from outside: %q", res.Text)
	}
	if res := run(t, env, "copy", tooltest.Decode(t, `{"source":"mine.txt","destination":"`+filepath.Join(outside, "x")+`"}`)); !res.IsError {
		t.Errorf("copy to outside: %q", res.Text)
	}
	if res := run(t, env, "mkdir", tooltest.Decode(t, `{"path":"`+filepath.Join(outside, "d")+`"}`)); !res.IsError {
		t.Errorf("mkdir outside: %q", res.Text)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" || exists(filepath.Join(outside, "x")) || exists(filepath.Join(outside, "d")) {
		t.Fatal("something outside the writable set changed")
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
