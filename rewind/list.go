package rewind

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Call is one checkpointed tool call of a document.
type Call struct {
	ID       string
	Time     time.Time // when its checkpoint was taken, before it ran
	Root     string
	Whole    bool     // the whole workspace was recorded (bash, opaque tools)
	Paths    []string // otherwise the named paths, absolute
	Finished bool     // After was recorded
	RewindTo string   // set on a rewind's own entry: the call it rewound to
	// Changes is what the call changed, sorted by path; empty until Finished.
	Changes []FileChange
	// NotCovered are files the checkpoints did not store (before or after).
	NotCovered []Uncovered

	before, after Ref
	meta          meta
	// what each checkpoint left out, by path relative to the root
	uncoveredBefore, uncoveredAfter map[string]string
}

// FileChange is one file a call added, modified or deleted.
type FileChange struct {
	Path string // absolute
	Kind ChangeKind
	rel  string
	old  entry // before the call; zero if added
	new  entry // after the call; zero if deleted
}

// ChangeKind is what a call did to a file.
type ChangeKind byte

const (
	Added    ChangeKind = 'A'
	Modified ChangeKind = 'M'
	Deleted  ChangeKind = 'D'
)

func (k ChangeKind) String() string {
	switch k {
	case Added:
		return "added"
	case Deleted:
		return "deleted"
	}
	return "modified"
}

// entry is a file's state in a tree: git's mode and blob; the zero entry is
// "absent".
type entry struct {
	mode string // "100644", "100755", "120000"
	oid  string
}

func (e entry) absent() bool { return e.mode == "" }

// List returns the document's calls in the order they ran (by the time of
// their checkpoints), each with what it changed.
func (s *Store) List(ctx context.Context, doc string) ([]Call, error) {
	g := s.git("", "")
	out, err := g.run(ctx, nil, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(tree)%00%(contents:subject)", docRefs(doc))
	if err != nil {
		return nil, err
	}
	byID := map[string]*Call{}
	for line := range strings.Lines(string(out)) {
		f := strings.SplitN(strings.TrimSuffix(line, "\n"), "\x00", 4)
		if len(f) != 4 {
			continue
		}
		idKey, stage := path.Base(path.Dir(f[0])), path.Base(f[0])
		c := byID[idKey]
		if c == nil {
			c = &Call{}
			byID[idKey] = c
		}
		m, err := parseMeta(f[3])
		if err != nil {
			return nil, err
		}
		ref := Ref{Name: f[0], Commit: f[1], Tree: f[2]}
		switch stage {
		case stageBefore:
			c.before, c.meta, c.uncoveredBefore = ref, m, uncoveredSet(m.NotCovered)
		case stageAfter:
			c.after, c.Finished, c.uncoveredAfter = ref, true, uncoveredSet(m.NotCovered)
			c.NotCovered = append(c.NotCovered, absUncovered(m.Root, m.NotCovered)...)
		}
	}
	var calls []Call
	for _, c := range byID {
		if c.before.Commit == "" {
			continue // an after without its before: half of a collected pair
		}
		m := c.meta
		c.ID, c.Time, c.Root, c.Whole, c.RewindTo = m.ID, m.Time, m.Root, m.Whole, m.RewindTo
		for _, p := range m.Paths {
			c.Paths = append(c.Paths, absPath(m.Root, p))
		}
		c.NotCovered = dedupeUncovered(append(absUncovered(m.Root, m.NotCovered), c.NotCovered...))
		calls = append(calls, *c)
	}
	slices.SortFunc(calls, func(a, b Call) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if err := s.diffCalls(ctx, calls); err != nil {
		return nil, err
	}
	return calls, nil
}

// diffCalls fills in each finished call's Changes with one diff-tree for
// all of them.
func (s *Store) diffCalls(ctx context.Context, calls []Call) error {
	var pairs []int
	var in strings.Builder
	for i, c := range calls {
		if c.Finished && c.before.Tree != c.after.Tree {
			pairs = append(pairs, i)
			fmt.Fprintf(&in, "%s %s\n", c.before.Tree, c.after.Tree)
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	out, err := s.git("", "").run(ctx, strings.NewReader(in.String()),
		"diff-tree", "--stdin", "--always", "-r", "-z", "--raw", "--no-renames", "--no-abbrev")
	if err != nil {
		return err
	}
	n := -1
	for len(out) > 0 {
		if out[0] != ':' { // "<tree> <tree>\n" opens the next pair's diff
			i := bytes.IndexByte(out, '\n')
			if i < 0 {
				break
			}
			out, n = out[i+1:], n+1
			continue
		}
		i := bytes.IndexByte(out, 0)
		j := bytes.IndexByte(out[i+1:], 0)
		if i < 0 || j < 0 || n < 0 || n >= len(pairs) {
			return fmt.Errorf("rewind: unexpected output of git diff-tree: %.80q", out)
		}
		fields := strings.Fields(string(out[1:i]))
		rel := string(out[i+1 : i+1+j])
		out = out[i+1+j+1:]
		if len(fields) != 5 {
			return fmt.Errorf("rewind: unexpected output of git diff-tree: %q", fields)
		}
		c := &calls[pairs[n]]
		fc := FileChange{Path: absPath(c.Root, rel), rel: rel, Kind: Modified,
			old: treeEntry(fields[0], fields[2]), new: treeEntry(fields[1], fields[3])}
		switch {
		case fc.old.absent():
			fc.Kind = Added
		case fc.new.absent():
			fc.Kind = Deleted
		}
		c.Changes = append(c.Changes, fc)
	}
	return nil
}

func treeEntry(mode, oid string) entry {
	if strings.Trim(mode, "0") == "" {
		return entry{}
	}
	return entry{mode: mode, oid: oid}
}

func absPath(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

func absUncovered(root string, us []Uncovered) []Uncovered {
	out := make([]Uncovered, len(us))
	for i, u := range us {
		out[i] = Uncovered{Path: absPath(root, u.Path), Reason: u.Reason}
	}
	return out
}

func dedupeUncovered(us []Uncovered) []Uncovered {
	slices.SortStableFunc(us, func(a, b Uncovered) int { return strings.Compare(a.Path, b.Path) })
	return slices.CompactFunc(us, func(a, b Uncovered) bool { return a.Path == b.Path })
}

func uncoveredSet(us []Uncovered) map[string]string {
	m := make(map[string]string, len(us))
	for _, u := range us {
		m[u.Path] = u.Reason
	}
	return m
}
