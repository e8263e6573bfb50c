package rewind

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a rewind does to a file.
type Kind int

const (
	Restore  Kind = iota // the file is there: its content or mode goes back
	Remove               // the calls created it: it goes
	Recreate             // the calls deleted it: it comes back
)

func (k Kind) String() string {
	return [...]string{"restore", "remove", "recreate"}[k]
}

// Change is one file a rewind changes.
type Change struct {
	Path string // absolute
	Kind Kind
	// Content is what the file will hold (a symlink's target); nil for Remove.
	Content []byte
	// Mode is 0o644, 0o755 or os.ModeSymlink; zero for Remove.
	Mode os.FileMode
	// Conflict: the file on disk is not what the last call touching it left
	// — the user changed it since. Apply leaves it unless Overwrite.
	Conflict bool
	Reason   string // why it conflicts, for the user

	rel    string
	root   string
	target entry
}

// Plan is what "Rewind files to before this call" will do.
type Plan struct {
	Doc, ID string
	Calls   []string // the IDs of the calls taken back: this one and every later one
	Changes []Change // sorted by path
	// NotCovered are files those calls' checkpoints did not store; a
	// rewind leaves them as they are.
	NotCovered []Uncovered
}

// Conflicts counts the changes that are conflicts.
func (p *Plan) Conflicts() int {
	n := 0
	for _, c := range p.Changes {
		if c.Conflict {
			n++
		}
	}
	return n
}

// Buffers are the texts of files open in an editor, by absolute path:
// such a file's current state is its buffer's text (unsaved changes
// included), not the disk's. open is false for a file that is not open.
type Buffers func(path string) (text []byte, open bool)

// Plan works out "Rewind files to before this call": every file changed by
// the call and by every later call of the document goes back to its state
// before the earliest of those calls that touched it. A call whose After
// was never recorded (chatls stopped while it ran) is closed first with the
// state found now.
func (s *Store) Plan(ctx context.Context, doc, id string) (*Plan, error) {
	return s.PlanWith(ctx, doc, id, nil)
}

// PlanWith is Plan where the files open in an editor are as buffers has
// them: a buffer the user typed into since the last call is a conflict,
// and a restore is planned against the buffer's text.
func (s *Store) PlanWith(ctx context.Context, doc, id string, buffers Buffers) (*Plan, error) {
	unlockGC, err := flock(ctx, s.private("gc.lock"), true)
	if err != nil {
		return nil, err
	}
	calls, err := s.List(ctx, doc)
	unlockGC()
	if err != nil {
		return nil, err
	}
	k := slices.IndexFunc(calls, func(c Call) bool { return c.ID == id })
	if k < 0 {
		return nil, fmt.Errorf("rewind: no checkpoint of call %s in %s (never recorded, or collected after keepDays)", id, doc)
	}
	closed := false
	for _, c := range calls[k:] {
		if !c.Finished {
			var paths []string
			if !c.Whole {
				paths = append([]string{}, c.Paths...)
			}
			if err := s.After(ctx, Scope{Root: c.Root, Doc: doc, ID: c.ID, Paths: paths}); err != nil {
				return nil, err
			}
			closed = true
		}
	}
	if closed {
		return s.PlanWith(ctx, doc, id, buffers)
	}
	unlockGC, err = flock(ctx, s.private("gc.lock"), true)
	if err != nil {
		return nil, err
	}
	defer unlockGC()
	return s.plan(ctx, doc, id, calls[k:], buffers)
}

// fileHistory is what the rewound calls did to one file.
type fileHistory struct {
	root, rel   string
	target      entry  // before the first of the calls that touched it
	left        entry  // after the last of them
	leftUnknown string // the last one's after did not store it: why
	uncovered   string // the first one's before did not store it: why
}

func (s *Store) plan(ctx context.Context, doc, id string, calls []Call, buffers Buffers) (*Plan, error) {
	p := &Plan{Doc: doc, ID: id}
	files := map[string]*fileHistory{}
	for _, c := range calls {
		p.Calls = append(p.Calls, c.ID)
		p.NotCovered = append(p.NotCovered, c.NotCovered...)
		for _, fc := range c.Changes {
			h := files[fc.Path]
			if h == nil {
				h = &fileHistory{root: c.Root, rel: fc.rel, target: fc.old, uncovered: c.uncoveredBefore[fc.rel]}
				files[fc.Path] = h
			}
			h.left, h.leftUnknown = fc.new, c.uncoveredAfter[fc.rel]
		}
	}
	p.NotCovered = dedupeUncovered(p.NotCovered)
	var want []string
	for path, h := range files {
		if h.uncovered != "" {
			continue // no stored "before": leave the file alone, it is in NotCovered
		}
		disk, err := currentEntry(path, buffers)
		if err != nil {
			return nil, fmt.Errorf("rewind: cannot read %s to plan the rewind: %w", path, err)
		}
		if buffers != nil && disk == h.target {
			// A buffer the editor never reloaded still shows the text
			// before the calls: the disk is what needs restoring.
			if disk, err = diskEntry(path); err != nil {
				return nil, fmt.Errorf("rewind: cannot read %s to plan the rewind: %w", path, err)
			}
		}
		if disk == h.target {
			continue // already as it was
		}
		ch := Change{Path: path, rel: h.rel, root: h.root, target: h.target, Kind: Restore}
		switch {
		case h.target.absent():
			ch.Kind = Remove
		case disk.absent():
			ch.Kind = Recreate
		}
		switch {
		case h.leftUnknown != "":
			ch.Conflict, ch.Reason = true, "after the last call it was "+h.leftUnknown+", so chatls cannot tell whether you changed it since"
		case disk != h.left:
			ch.Conflict, ch.Reason = true, conflictReason(disk, h.left)
		}
		if !h.target.absent() {
			ch.Mode = h.target.fileMode()
			want = append(want, h.target.oid)
		}
		p.Changes = append(p.Changes, ch)
	}
	blobs, err := s.readBlobs(ctx, want)
	if err != nil {
		return nil, err
	}
	for i := range p.Changes {
		if c := &p.Changes[i]; c.Kind != Remove {
			c.Content = blobs[c.target.oid]
		}
	}
	slices.SortFunc(p.Changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return p, nil
}

func conflictReason(disk, left entry) string {
	switch {
	case disk.absent():
		return "you deleted it after the last call changed it"
	case left.absent():
		return "you created it again after the last call deleted it"
	case disk.oid == left.oid:
		return "you changed its mode after the last call changed it"
	}
	return "you changed it after the last call changed it"
}

// readBlobs reads blobs from the store with one git cat-file.
func (s *Store) readBlobs(ctx context.Context, oids []string) (map[string][]byte, error) {
	blobs := map[string][]byte{}
	if len(oids) == 0 {
		return blobs, nil
	}
	out, err := s.git("", "").run(ctx, strings.NewReader(strings.Join(oids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for range oids {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("rewind: reading the store: %w", err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("rewind: the store lacks object %s (damaged, or collected while planning); run the rewind again", strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("rewind: reading the store: %q", header)
		}
		data := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("rewind: reading the store: %w", err)
		}
		blobs[f[0]] = data[:size]
	}
	return blobs, nil
}
