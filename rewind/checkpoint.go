package rewind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Checkpoint records the state of the scope before a call runs, under
// refs/chatls/<hash(doc)>/<hash(id)>/before. Files larger than MaxFileSize,
// ignored files and nested repositories are listed as not covered; named
// paths that do not exist are recorded as absent, so that a rewind removes
// what the call creates.
func (s *Store) Checkpoint(ctx context.Context, sc Scope) (Ref, error) {
	return s.record(ctx, sc, stageBefore, meta{})
}

// After records the state of the same scope once the call has finished,
// under …/after: the difference between the two is what the call changed.
// A call that changed nothing gets its before commit as its after, and
// stores no new object.
func (s *Store) After(ctx context.Context, sc Scope) error {
	if _, err := s.resolve(ctx, callRef(sc.Doc, sc.ID, stageBefore)); err != nil {
		return fmt.Errorf("rewind: no checkpoint before call %s of %s; call Checkpoint before the call runs: %w", sc.ID, sc.Doc, err)
	}
	_, err := s.record(ctx, sc, stageAfter, meta{})
	return err
}

// record snapshots the scope and stores the commit under the stage's ref.
// extra carries the fields only a rewind's own checkpoint sets.
func (s *Store) record(ctx context.Context, sc Scope, stage string, extra meta) (Ref, error) {
	root, err := checkRoot(sc.Root)
	if err != nil {
		return Ref{}, err
	}
	if sc.Doc == "" || sc.ID == "" {
		return Ref{}, errors.New("rewind: a checkpoint needs the document path and the tool-use ID")
	}
	var rel []string
	if sc.Paths != nil {
		if rel, err = relPaths(root, sc.Paths); err != nil {
			return Ref{}, err
		}
	}
	unlockGC, err := flock(ctx, s.private("gc.lock"), true)
	if err != nil {
		return Ref{}, err
	}
	defer unlockGC()
	var snap snapshot
	if sc.Paths == nil {
		unlock, err := s.lockWorkspace(ctx, root)
		if err != nil {
			return Ref{}, err
		}
		defer unlock()
		snap, err = s.wholeSnapshot(ctx, root)
		if err != nil {
			return Ref{}, err
		}
	} else if snap, err = s.scopedSnapshot(ctx, root, rel, bufferOverlay(root, rel, sc.Buffers, sc.overlay)); err != nil {
		return Ref{}, err
	}
	m := extra
	m.Doc, m.ID, m.Root, m.Stage, m.Time = sc.Doc, sc.ID, root, stage, s.opt.Now()
	m.Whole, m.Paths, m.NotCovered, m.Absent = sc.Paths == nil, rel, snap.notCovered, snap.absent
	g := s.git(root, "")
	ref := Ref{Name: callRef(sc.Doc, sc.ID, stage), Tree: snap.tree}
	if stage == stageAfter {
		// Unchanged: the after is the before commit itself, no new object.
		if before, err := s.resolve(ctx, callRef(sc.Doc, sc.ID, stageBefore)); err == nil && before.Tree == snap.tree {
			ref.Commit = before.Commit
		}
	}
	if ref.Commit == "" {
		if ref.Commit, err = s.writeCommit(snap.tree, m.message(), m.Time); err != nil {
			return Ref{}, err
		}
	}
	if stage == stageBefore && extra.RewindTo != "" {
		// A rewind's ID is allocated by creating its ref: git fails if taken.
		if _, err := g.run(ctx, strings.NewReader("create "+ref.Name+" "+ref.Commit+"\n"), "update-ref", "--stdin"); err != nil {
			return Ref{}, err
		}
	} else if err := s.writeRef(ref.Name, ref.Commit); err != nil {
		return Ref{}, err
	}
	if sc.Paths == nil {
		// Keeps the objects of the private index reachable for Collect.
		if err := s.writeRef(workspaceRef+key(root), ref.Commit); err != nil {
			return Ref{}, err
		}
	}
	return ref, nil
}

// lockWorkspace serialises whole snapshots of one root (they share its
// private index) between goroutines and processes.
func (s *Store) lockWorkspace(ctx context.Context, root string) (func(), error) {
	dir := s.workspace(root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("rewind: cannot create the workspace's index directory: %w", err)
	}
	_ = writeIfDifferent(filepath.Join(dir, "root"), []byte(root+"\n")) // for a person reading the store
	return flock(ctx, filepath.Join(dir, "lock"), false)
}

// resolve reads a ref's commit and tree.
func (s *Store) resolve(ctx context.Context, name string) (Ref, error) {
	out, err := s.git("", "").run(ctx, nil, "rev-parse", name, name+"^{tree}")
	if err != nil {
		return Ref{}, fmt.Errorf("rewind: no checkpoint %s", name)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return Ref{}, fmt.Errorf("rewind: no checkpoint %s", name)
	}
	return Ref{Name: name, Commit: f[0], Tree: f[1]}, nil
}

func checkRoot(root string) (string, error) {
	if !filepath.IsAbs(root) {
		return "", fmt.Errorf("rewind: the workspace root %q must be an absolute path", root)
	}
	root = filepath.Clean(root)
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("rewind: the workspace root %s is not a directory", root)
	}
	return root, nil
}
