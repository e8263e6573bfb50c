package rewind

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWorkspaceThatIsNotAGitRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "a\n", ".gitignore": "build/\n", "build/out": "ignored\n"})
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	before := tree(t, root)
	id := a.bash(`echo b > a.txt; echo built > build/out; echo n > n.txt`)
	if diff := cmp.Diff([]string{"restore a.txt", "remove n.txt"}, changes(root, a.plan(id))); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	a.rewind(id, ApplyOptions{})
	before["build/out"] = "file 0 built\n"
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Errorf("tree after the rewind (-want +got):\n%s", diff)
	}
}

// The user's repository — every byte and name under .git, and what git
// status says — is the same after every operation of the store.
func TestUsersGitDirectoryIsNeverTouched(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	sh(t, root, `echo 'private-*' >> .git/info/exclude; echo keep > private-notes; echo staged > staged.txt; git add staged.txt; echo wip >> a.txt`)
	hash := dotGitHash(t, root)
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	first := a.bash(`echo c > c.txt; echo more >> b.txt; echo changed > private-notes`)
	a.write(map[string]string{"a.txt": "agent\n"})
	applied := a.rewind(first, ApplyOptions{})
	if _, err := s.Undo(testCtx(t), a.doc, applied.UndoID, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	a.rewind(first, ApplyOptions{})
	if err := s.Collect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, root)["private-notes"]; got != "file 0 changed\n" {
		t.Errorf("private-notes = %q: a file excluded by .git/info/exclude was rewound", got)
	}
	if storeHolds(t, s, "keep\n") {
		t.Error("the store holds a file excluded by .git/info/exclude")
	}
	if got := dotGitHash(t, root); got != hash {
		t.Error("the user's .git or git status changed")
	}
}

// A call that changes nothing stores one small commit: the tree is the one
// already stored, and the after is the before commit itself.
func TestCallThatChangesNothingStoresAlmostNothing(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n"})
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	a.bash(`true`)
	size := objectsSize(t, s)
	id := a.bash(`cat a.txt > /dev/null`)
	added := objectsSize(t, s) - size
	if added > 1024 {
		t.Errorf("a call that changed nothing added %d bytes of objects, want one commit (< 1 KiB)", added)
	}
	calls, err := s.List(testCtx(t), a.doc)
	if err != nil {
		t.Fatal(err)
	}
	if c := calls[1]; c.ID != id || c.before.Commit != c.after.Commit || len(c.Changes) != 0 {
		t.Errorf("unchanged call = %+v, want its after to be its before commit", c)
	}
	t.Logf("a call that changed nothing added %d bytes", added)
}

func TestCollectRemovesOldCheckpointsAndShrinksTheStore(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	root := newRepo(t, map[string]string{"a.txt": "a\n"})
	s := newStore(t, Options{KeepDays: 30, Now: clock})
	a := newAgent(t, s, root)
	for i := range 3 {
		big := make([]byte, 256<<10)
		_, _ = rand.Read(big)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("r%d.bin", i)), big, 0o644); err != nil {
			t.Fatal(err)
		}
		a.bash(fmt.Sprintf("rm r%d.bin", i))
	}
	full := objectsSize(t, s)
	now = now.AddDate(0, 0, 20)
	recent := a.bash(`echo recent > a.txt`)
	now = now.AddDate(0, 0, 15) // the first three are 35 days old, the last 15
	if err := s.Collect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	calls, err := s.List(testCtx(t), a.doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].ID != recent {
		t.Errorf("after Collect the calls are %+v, want only %s", calls, recent)
	}
	if after := objectsSize(t, s); after > full/4 {
		t.Errorf("objects: %d bytes before Collect, %d after; want the old random files gone", full, after)
	}
	// What is left still works: rewind the recent call, checkpoint again.
	a.rewind(recent, ApplyOptions{})
	if got := tree(t, root)["a.txt"]; got != "file 0 a\n" {
		t.Errorf("a.txt = %q after rewinding the kept call", got)
	}
	a.bash(`echo later > a.txt`)
	fsck(t, s)
}

// Two processes (two stores on one directory) checkpoint the same
// workspace at once: both succeed and the store stays sound.
func TestConcurrentStoresOnOneDirectory(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"a.txt": "a\n"})
	dir := filepath.Join(t.TempDir(), "checkpoints")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for p := range 2 {
		wg.Go(func() {
			s, err := Open(dir, Options{})
			if err != nil {
				errs <- err
				return
			}
			for i := range 4 {
				sc := Scope{Root: root, Doc: filepath.Join(root, fmt.Sprintf("p%d.chat", p)), ID: fmt.Sprint(i)}
				if _, err := s.Checkpoint(testCtx(t), sc); err != nil {
					errs <- err
					return
				}
				writeFiles(t, root, map[string]string{fmt.Sprintf("p%d-%d.txt", p, i): "x\n"})
				if err := s.After(testCtx(t), sc); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for p := range 2 {
		calls, err := s.List(testCtx(t), filepath.Join(root, fmt.Sprintf("p%d.chat", p)))
		if err != nil || len(calls) != 4 {
			t.Errorf("document %d: %d calls, %v; want 4", p, len(calls), err)
		}
	}
	fsck(t, s)
}

func TestScopeErrors(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"a.txt": "a\n"})
	s := newStore(t, Options{})
	doc := filepath.Join(root, "x.chat")
	_, err := s.Checkpoint(testCtx(t), Scope{Root: root, Doc: doc, ID: "1", Paths: []string{"/etc/passwd"}})
	if !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("a path outside the root: %v, want ErrOutsideRoot", err)
	}
	if _, err := s.Checkpoint(testCtx(t), Scope{Root: root, Doc: doc, ID: "2", Paths: []string{"../up.txt"}}); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("a relative path leaving the root: %v, want ErrOutsideRoot", err)
	}
	if _, err := s.Checkpoint(testCtx(t), Scope{Root: "relative", Doc: doc, ID: "3"}); err == nil {
		t.Error("a relative root was accepted")
	}
	if err := s.After(testCtx(t), Scope{Root: root, Doc: doc, ID: "never"}); err == nil {
		t.Error("After without a Checkpoint succeeded")
	}
	if _, err := s.Plan(testCtx(t), doc, "unknown"); err == nil {
		t.Error("Plan of an unknown call succeeded")
	}
}

// Tool-use IDs hold characters refs refuse and may differ only in case.
func TestToolUseIDsOfAnyShape(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"a.txt": "a\n"})
	s := newStore(t, Options{})
	doc := filepath.Join(root, "x.chat")
	ids := []string{"urn:flemma:tool:bash:0f3a", "toolu_01Ab", "toolu_01aB", "call with spaces/..~^"}
	for _, id := range ids {
		sc := Scope{Root: root, Doc: doc, ID: id, Paths: []string{"a.txt"}}
		if _, err := s.Checkpoint(testCtx(t), sc); err != nil {
			t.Fatalf("Checkpoint %q: %v", id, err)
		}
		if err := s.After(testCtx(t), sc); err != nil {
			t.Fatal(err)
		}
	}
	calls, err := s.List(testCtx(t), doc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, c.ID)
	}
	if diff := cmp.Diff(sorted(append([]string{}, ids...)), sorted(got)); diff != "" {
		t.Errorf("IDs listed (-want +got):\n%s", diff)
	}
}

func fsck(t *testing.T, s *Store) {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", s.Dir(), "fsck", "--no-dangling")
	cmd.Env = userEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("git fsck of the store: %v\n%s", err, out)
	}
}
