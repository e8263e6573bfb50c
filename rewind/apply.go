package rewind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ApplyOptions say which of a plan's changes Apply makes.
type ApplyOptions struct {
	// Overwrite restores conflicts too (files the user changed since).
	Overwrite bool
	// Skip names files the caller changes itself — those open in an editor,
	// sent through workspace/applyEdit with Change.Content so that the
	// editor's undo reverses them. Apply leaves them on disk as they are,
	// but its checkpoint records them as Buffers has them before and as
	// Change.Content after, so that Undo finds what the caller put there.
	// A conflict is never skipped: it is left alone unless Overwrite.
	Skip func(path string) bool
	// Buffers are the texts of the files open in an editor (nil: none):
	// Undo plans on them, and a skipped file's checkpoint holds its text.
	Buffers Buffers
}

// Applied is what Apply did.
type Applied struct {
	// UndoID is the synthetic call ID under which Apply checkpointed what
	// it replaced; Undo(doc, UndoID) takes the rewind back. "" if Apply
	// wrote nothing.
	UndoID    string
	Written   []string // restored or recreated
	Removed   []string
	Skipped   []string // left to the caller by Skip
	Conflicts []string // left alone: the user changed them since
}

// rewindPrefix starts the ID of a rewind's own checkpoint.
const rewindPrefix = "rewind-"

// Apply carries out a plan on disk: each file written atomically (a
// temporary file renamed over it), with its exec bit, symlinks as symlinks,
// missing directories created, directories emptied by a removal removed.
// Before it changes anything it checkpoints what it replaces under a new
// ID, rewind-<n>, so the rewind itself can be taken back (Undo).
func (s *Store) Apply(ctx context.Context, p *Plan, opt ApplyOptions) (Applied, error) {
	var a Applied
	var todo []Change
	var skipped []Change
	for _, c := range p.Changes {
		switch {
		case c.Conflict && !opt.Overwrite:
			a.Conflicts = append(a.Conflicts, c.Path)
		case opt.Skip != nil && opt.Skip(c.Path):
			a.Skipped = append(a.Skipped, c.Path)
			skipped = append(skipped, c)
		default:
			todo = append(todo, c)
		}
	}
	if len(todo)+len(skipped) == 0 {
		return a, nil
	}
	scopes, err := s.rewindCheckpoints(ctx, p, append(slices.Clone(todo), skipped...), skipped, opt.Buffers)
	if err != nil {
		return a, err
	}
	a.UndoID = scopes[0].ID
	// Removals first, deepest first, so that a file can come back where a
	// directory the calls made stood.
	slices.SortStableFunc(todo, func(x, y Change) int {
		if (x.Kind == Remove) != (y.Kind == Remove) {
			if x.Kind == Remove {
				return -1
			}
			return 1
		}
		if x.Kind == Remove {
			return strings.Compare(y.Path, x.Path)
		}
		return strings.Compare(x.Path, y.Path)
	})
	var errs []error
	for _, c := range todo {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		if c.Kind == Remove {
			if err := removeFile(c.root, c.Path); err != nil {
				errs = append(errs, err)
				continue
			}
			a.Removed = append(a.Removed, c.Path)
			continue
		}
		if err := writeFile(c.Path, c.Content, c.Mode); err != nil {
			errs = append(errs, err)
			continue
		}
		a.Written = append(a.Written, c.Path)
	}
	for _, sc := range scopes {
		// A skipped file is recorded as the caller will leave it.
		sc.overlay = afterOverlay(sc.Root, skipped)
		if err := s.After(context.WithoutCancel(ctx), sc); err != nil {
			errs = append(errs, err)
		}
	}
	return a, errors.Join(errs...)
}

// rewindCheckpoints checkpoints the files a rewind is about to change, one
// scope per workspace root, each under a new rewind-<n> ID of the document;
// the skipped ones (the caller's, open in an editor) as their buffers hold
// them.
func (s *Store) rewindCheckpoints(ctx context.Context, p *Plan, todo, skipped []Change, buffers Buffers) ([]Scope, error) {
	calls, err := s.List(ctx, p.Doc)
	if err != nil {
		return nil, err
	}
	n := 1 + len(slices.DeleteFunc(calls, func(c Call) bool { return c.RewindTo == "" }))
	byRoot := map[string][]string{}
	var roots []string
	for _, c := range todo {
		if byRoot[c.root] == nil {
			roots = append(roots, c.root)
		}
		byRoot[c.root] = append(byRoot[c.root], c.rel)
	}
	var scopes []Scope
	for _, root := range roots {
		for tries := 0; ; tries++ {
			sc := Scope{Root: root, Doc: p.Doc, ID: fmt.Sprintf("%s%d", rewindPrefix, n), Paths: byRoot[root],
				overlay: beforeOverlay(root, skipped, buffers)}
			n++
			_, err := s.record(ctx, sc, stageBefore, meta{RewindTo: p.ID})
			var gerr *gitError
			if errors.As(err, &gerr) && strings.Contains(gerr.stderr, "already exists") && tries < 100 {
				continue // another process took that number
			}
			if err != nil {
				return nil, fmt.Errorf("rewind: cannot checkpoint the files before rewinding, so nothing was changed: %w", err)
			}
			scopes = append(scopes, sc)
			break
		}
	}
	return scopes, nil
}

// Undo takes a rewind back: the files it changed return to what they were
// just before it (the agent's versions). undoID is Applied.UndoID, or
// LastRewind's answer. Undo is itself a rewind, and can be undone.
func (s *Store) Undo(ctx context.Context, doc, undoID string, opt ApplyOptions) (Applied, error) {
	if !strings.HasPrefix(undoID, rewindPrefix) {
		return Applied{}, fmt.Errorf("rewind: %s is not a rewind; to take back a call use Plan and Apply", undoID)
	}
	p, err := s.PlanWith(ctx, doc, undoID, opt.Buffers)
	if err != nil {
		return Applied{}, err
	}
	return s.Apply(ctx, p, opt)
}

// LastRewind is the ID of the document's latest rewind, "" if it has none.
func (s *Store) LastRewind(ctx context.Context, doc string) (string, error) {
	calls, err := s.List(ctx, doc)
	if err != nil {
		return "", err
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].RewindTo != "" {
			return calls[i].ID, nil
		}
	}
	return "", nil
}

// writeFile replaces path atomically with content and mode.
func writeFile(path string, content []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("rewind: cannot create %s for %s: %w", dir, path, err)
	}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		// A directory the calls made stands where the file was; its
		// files were removed first, so it is empty unless the user's.
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("rewind: a directory is in the way of %s; move it and rewind again: %w", path, err)
		}
	}
	tmp := filepath.Join(dir, ".chatls-rewind-"+randomHex())
	if mode&os.ModeSymlink != 0 {
		if err := os.Symlink(string(content), tmp); err != nil {
			return fmt.Errorf("rewind: cannot restore the symlink %s: %w", path, err)
		}
	} else if err := writeTemp(tmp, content, permFor(path, mode)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rewind: cannot restore %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rewind: cannot restore %s: %w", path, err)
	}
	return nil
}

func writeTemp(path string, content []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(perm)
	}
	return errors.Join(err, f.Close())
}

// permFor keeps a file's own permission bits (git records only the exec
// bit), setting or clearing exec as the checkpoint says.
func permFor(path string, mode os.FileMode) os.FileMode {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return mode
	}
	if mode&0o100 != 0 {
		return fi.Mode().Perm() | (fi.Mode().Perm()&0o444)>>2
	}
	return fi.Mode().Perm() &^ 0o111
}

// removeFile removes path and then its parents that it left empty, up to
// (not including) root.
func removeFile(root, path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("rewind: cannot remove %s: %w", path, err)
	}
	for dir := filepath.Dir(path); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break // not empty: someone else's files are in it
		}
	}
	return nil
}
