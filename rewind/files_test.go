package rewind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBinaryExecutableAndSymlinkFilesComeBackExactly(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"target.txt": "t\n", "other.txt": "o\n"})
	bin := []byte{0, 1, 2, 0xff, 0xfe, '\r', '\n', 0, 'x'}
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	sh(t, root, `printf '#!/bin/sh\necho hi\n' > run.sh; chmod 755 run.sh; ln -s target.txt link; ln -s missing dangling; git add -A; git commit -qm files`)
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	before := tree(t, root)
	id := a.bash(`printf 'changed\0' > blob.bin; chmod -x run.sh; rm link; ln -s other.txt link; rm dangling; ln -s target.txt newlink`)

	if diff := cmp.Diff([]string{"recreate dangling", "remove newlink", "restore blob.bin", "restore link", "restore run.sh"}, sorted(changes(root, a.plan(id)))); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	a.rewind(id, ApplyOptions{})
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Errorf("tree after the rewind (-want +got):\n%s", diff)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "blob.bin")); string(got) != string(bin) {
		t.Errorf("blob.bin = %q, want %q", got, bin)
	}
	if fi, _ := os.Lstat(filepath.Join(root, "link")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("link came back as a file, not a symlink")
	}
}

func TestLargeFilesAreListedNotCoveredAndLeftAlone(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"small.txt": "s\n", "big.dat": strings.Repeat("B", 2000)})
	s := newStore(t, Options{MaxFileSize: 1000})
	a := newAgent(t, s, root)
	id := a.bash(`echo more >> small.txt; printf 'AGENT-BIG-%.0s' $(seq 300) > big.dat; printf 'NEW-BIG-%.0s' $(seq 300) > newbig.dat`)
	bigAfter, _ := os.ReadFile(filepath.Join(root, "big.dat"))

	p := a.plan(id)
	if diff := cmp.Diff([]string{"restore small.txt"}, changes(root, p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"big.dat: larger than maxFileSize", "newbig.dat: larger than maxFileSize"}, uncovered(root, p.NotCovered)); diff != "" {
		t.Errorf("not covered (-want +got):\n%s", diff)
	}
	if _, err := s.Apply(testCtx(t), p, ApplyOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.dat")); string(got) != string(bigAfter) {
		t.Error("the rewind changed a file it does not cover")
	}
	if _, err := os.Stat(filepath.Join(root, "newbig.dat")); err != nil {
		t.Error("the rewind removed a file it does not cover")
	}
	if storeHolds(t, s, "BBBBBBBBBB") || storeHolds(t, s, "AGENT-BIG") {
		t.Error("the store holds a file larger than MaxFileSize")
	}
}

// A file that grows past maxFileSize during a call is not known after it:
// the rewind cannot tell whether the user changed it since, so it is a
// conflict, restored only on Overwrite.
func TestFileGrownPastMaxFileSizeIsAConflict(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"grow.txt": "small\n"})
	s := newStore(t, Options{MaxFileSize: 1000})
	a := newAgent(t, s, root)
	id := a.bash(`head -c 5000 /dev/zero > grow.txt`)
	p := a.plan(id)
	if diff := cmp.Diff([]string{"!restore grow.txt"}, changes(root, p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	a.rewind(id, ApplyOptions{Overwrite: true})
	if got, _ := os.ReadFile(filepath.Join(root, "grow.txt")); string(got) != "small\n" {
		t.Errorf("grow.txt = %q after an overwriting rewind, want its checkpointed text", got)
	}
}

func TestNestedRepositoriesAreNotCovered(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"a.txt": "a\n"})
	sh(t, root, `mkdir empty-repo && git -C empty-repo init -q
mkdir clone && git -C clone init -q && echo x > clone/x && git -C clone add x && git -C clone commit -qm x`)
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	id := a.bash(`echo changed > clone/x; echo b >> a.txt`)
	p := a.plan(id)
	if diff := cmp.Diff([]string{"restore a.txt"}, changes(root, p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"clone: a git repository of its own", "empty-repo: a git repository of its own"}, uncovered(root, p.NotCovered)); diff != "" {
		t.Errorf("not covered (-want +got):\n%s", diff)
	}
}

// The workspace's .gitattributes would have git convert line ends on the
// way into the store; the store's info/attributes turns that off, so the
// bytes restored are the bytes that were there.
func TestLineEndingsAndFiltersOfGitattributesDoNotApply(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{".gitattributes": "* text eol=crlf\n*.dat filter=lfs\n"})
	writeFiles(t, root, map[string]string{"crlf.txt": "one\r\ntwo\r\n", "lf.txt": "one\ntwo\n", "x.dat": "data\r\n"})
	before := tree(t, root)
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	id := a.bash(`echo x > crlf.txt; echo x > lf.txt; echo x > x.dat`)
	a.rewind(id, ApplyOptions{})
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Errorf("tree after the rewind (-want +got):\n%s", diff)
	}
}

func TestFileToolCreatingAFileIsRemovedWithItsEmptyDirectories(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"keep/k.txt": "k\n"})
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	before := tree(t, root)
	id := a.write(map[string]string{"made/by/agent.go": "package x\n", "keep/new.txt": "n\n"})

	calls, err := s.List(testCtx(t), a.doc)
	if err != nil {
		t.Fatal(err)
	}
	if calls[0].Whole || len(calls[0].Paths) != 2 {
		t.Errorf("a file tool's call = %+v, want its two named paths", calls[0])
	}
	if diff := cmp.Diff([]string{"remove keep/new.txt", "remove made/by/agent.go"}, changes(root, a.plan(id))); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	a.rewind(id, ApplyOptions{})
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Errorf("tree after the rewind (-want +got):\n%s", diff)
	}
}

func TestNamedIgnoredFileIsNotCovered(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{".gitignore": ".env\n"})
	writeFiles(t, root, map[string]string{".env": "TOKEN=before\n"})
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	id := a.write(map[string]string{".env": "TOKEN=after\n"})
	p := a.plan(id)
	if len(p.Changes) != 0 || len(p.NotCovered) != 1 {
		t.Errorf("plan = %v, not covered %v; want no change and .env not covered", changes(root, p), p.NotCovered)
	}
	if storeHolds(t, s, "TOKEN=") {
		t.Error("the store holds an ignored file")
	}
}
