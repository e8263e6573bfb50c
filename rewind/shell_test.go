package rewind

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What bash calls do to a workspace, run for real between Checkpoint and
// After; each is taken back exactly.
func TestShellCommandsAreTakenBack(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.txt": "alpha\nbeta\n", "b.txt": "bee\n", "c.txt": "sea\n",
		"tree/x/1.txt": "1\n", "tree/x/2.txt": "2\n", "tree/y/3.txt": "3\n",
	}
	for _, tc := range []struct {
		name, script string
		plan         []string
	}{
		{"sed -i", `sed -i 's/beta/gamma/' a.txt`, []string{"restore a.txt"}},
		{"rm -r", `rm -r tree`, []string{"recreate tree/x/1.txt", "recreate tree/x/2.txt", "recreate tree/y/3.txt"}},
		{"mv", `mv b.txt moved.txt`, []string{"recreate b.txt", "remove moved.txt"}},
		{"git mv", `git mv c.txt tree/c-moved.txt`, []string{"recreate c.txt", "remove tree/c-moved.txt"}},
		{"mv a directory", `mv tree/x tree/z`, []string{"recreate tree/x/1.txt", "recreate tree/x/2.txt", "remove tree/z/1.txt", "remove tree/z/2.txt"}},
		{"file replaced by a directory", `rm b.txt; mkdir -p b.txt/inner; echo in > b.txt/inner/f`, []string{"recreate b.txt", "remove b.txt/inner/f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := newRepo(t, files)
			before := tree(t, root)
			status := sh(t, root, "GIT_OPTIONAL_LOCKS=0 git status --porcelain")
			s := newStore(t, Options{})
			a := newAgent(t, s, root)
			id := a.bash(tc.script)
			if diff := cmp.Diff(tc.plan, changes(root, a.plan(id))); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			a.rewind(id, ApplyOptions{})
			if diff := cmp.Diff(before, tree(t, root)); diff != "" {
				t.Errorf("tree after the rewind (-want +got):\n%s", diff)
			}
			// git mv changed the user's index: the rewind restores files,
			// not the user's index, so only the work tree is compared.
			if tc.name != "git mv" {
				if got := sh(t, root, "git status --porcelain"); got != status {
					t.Errorf("git status after the rewind = %q, want %q", got, status)
				}
			}
		})
	}
}

// `git checkout -- file` throws away a change an earlier call made;
// rewinding that bash call brings the earlier call's version back.
func TestRewindOfGitCheckoutBringsBackTheDiscardedEdit(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"f.go": "package committed\n"})
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	a.write(map[string]string{"f.go": "package edited\n"})
	checkout := a.bash(`git checkout -- f.go`)
	if diff := cmp.Diff([]string{"restore f.go"}, changes(root, a.plan(checkout))); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	a.rewind(checkout, ApplyOptions{})
	if got := tree(t, root)["f.go"]; got != "file 0 package edited\n" {
		t.Errorf("f.go = %q, want the edit that git checkout discarded", got)
	}
}
