package rewind

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The commit chatls writes itself is byte for byte the one `git
// commit-tree` makes of the same tree, message and time: the same ID, and
// git reads it back (cat-file, for-each-ref through the ref written).
func TestWrittenCommitIsGitsOwn(t *testing.T) {
	when := time.Date(2026, 12, 2, 15, 4, 5, 0, time.UTC)
	s := newStore(t, Options{Now: func() time.Time { return when }})
	ctx := context.Background()
	g := s.git("", "")
	out, err := g.run(ctx, nil, "mktree")
	if err != nil {
		t.Fatal(err)
	}
	tree := strings.TrimSpace(string(out))
	message := `{"doc":"/w/a.chat","id":"toolu_01","stage":"before"}`
	want, err := g.run(ctx, strings.NewReader(message+"\n"), "commit-tree", tree)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.writeCommit(tree, message, when)
	if err != nil {
		t.Fatal(err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Fatalf("commit %s, git's is %s", got, want)
	}
	if err := s.writeRef(refRoot+"test/ref", got); err != nil {
		t.Fatal(err)
	}
	out, err = g.run(ctx, nil, "for-each-ref", "--format=%(objectname) %(contents:subject)", refRoot+"test/")
	if err != nil || strings.TrimSpace(string(out)) != got+" "+message {
		t.Fatalf("for-each-ref: %v %q", err, out)
	}
	if out, err := g.run(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v %s", err, out)
	}
}
