package rewind

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBashCallTrackedUntrackedIgnored(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"a.txt": "one\n", ".gitignore": "*.log\n", "dir/b.txt": "bee\n"})
	writeFiles(t, root, map[string]string{"u.txt": "untracked\n", "x.log": "secret-ignored-before\n"})
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	before := tree(t, root)
	id := a.bash(`echo two >> a.txt; rm u.txt; mkdir -p new/deep; echo new > new/deep/n.txt; echo secret-ignored-after > x.log`)

	calls, err := s.List(testCtx(t), a.doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].ID != id || !calls[0].Whole || !calls[0].Finished {
		t.Fatalf("List = %+v, want the one finished whole-workspace call %s", calls, id)
	}
	var got []string
	for _, c := range calls[0].Changes {
		got = append(got, c.Kind.String()+" "+c.Path[len(root)+1:])
	}
	if diff := cmp.Diff([]string{"modified a.txt", "added new/deep/n.txt", "deleted u.txt"}, got); diff != "" {
		t.Errorf("the call's changes (-want +got):\n%s", diff)
	}

	p := a.plan(id)
	if diff := cmp.Diff([]string{"restore a.txt", "remove new/deep/n.txt", "recreate u.txt"}, changes(root, p)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	applied, err := s.Apply(testCtx(t), p, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if applied.UndoID == "" || len(applied.Written) != 2 || len(applied.Removed) != 1 {
		t.Errorf("Applied = %+v, want 2 written, 1 removed and an undo ID", applied)
	}
	want := before
	want["x.log"] = "file 0 secret-ignored-after\n" // ignored: neither stored nor restored
	if diff := cmp.Diff(want, tree(t, root)); diff != "" {
		t.Errorf("tree after the rewind (-want +got):\n%s", diff)
	}
	if storeHolds(t, s, "secret-ignored") {
		t.Error("the store holds an ignored file's content")
	}
}
