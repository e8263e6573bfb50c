package rewind

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// snapshot is one recorded state of a scope: its tree and what it left out.
type snapshot struct {
	tree       string
	notCovered []Uncovered
	absent     []string
}

// wholeSnapshot brings the root's private index up to date with the work
// tree and writes its tree. Git's stat cache in that index is what makes a
// repeated snapshot cost about what `git status` costs: diff-files lists the
// tracked files whose stat changed, ls-files the untracked ones, in parallel;
// only those are hashed.
func (s *Store) wholeSnapshot(ctx context.Context, root string) (snapshot, error) {
	g := s.git(root, filepath.Join(s.workspace(root), "index"))
	type result struct {
		out []byte
		err error
	}
	untracked := make(chan result, 1)
	go func() {
		out, err := g.run(ctx, nil, "ls-files", "-z", "--others", "--exclude-standard")
		untracked <- result{out, err}
	}()
	changed, err := g.run(ctx, nil, "diff-files", "-z", "--name-status", "--no-renames")
	u := <-untracked
	if err != nil {
		return snapshot{}, err
	}
	if u.err != nil {
		return snapshot{}, u.err
	}
	var remove, candidates []string
	tracked := map[string]bool{}
	fields := splitNUL(changed)
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == "D" {
			remove = append(remove, fields[i+1])
			continue
		}
		candidates = append(candidates, fields[i+1])
		tracked[fields[i+1]] = true
	}
	candidates = append(candidates, splitNUL(u.out)...)
	var snap snapshot
	var add []string
	for _, p := range candidates {
		kind, why := s.classify(root, p)
		switch {
		case kind == storeIt:
			add = append(add, p)
		case tracked[p]:
			remove = append(remove, p) // gone, or no longer storable: not in this tree
		}
		if kind == leaveOut {
			snap.notCovered = append(snap.notCovered, Uncovered{Path: strings.TrimSuffix(p, "/"), Reason: why})
		}
	}
	if err := updateIndex(ctx, g, remove, add); err != nil {
		return snapshot{}, err
	}
	snap.tree, err = writeTree(ctx, g)
	slices.SortFunc(snap.notCovered, func(a, b Uncovered) int { return strings.Compare(a.Path, b.Path) })
	return snap, err
}

// scopedSnapshot records only the named paths, in an index of its own that
// starts empty, so the tree holds exactly the scope. A named directory
// stands for the files under it; named files that .gitignore excludes are
// not stored (listed as not covered), as in a whole snapshot.
//
// overlay names paths recorded as given instead (files open in an editor).
func (s *Store) scopedSnapshot(ctx context.Context, root string, paths []string, overlay map[string]overlayFile) (snapshot, error) {
	index := s.private("tmp", "index-"+randomHex())
	defer os.Remove(index)
	g := s.git(root, index)
	var snap snapshot
	var present []string
	var given strings.Builder // update-index --index-info lines
	for _, p := range paths {
		if ov, ok := overlay[p]; ok {
			if ov.absent {
				snap.absent = append(snap.absent, p)
				continue
			}
			out, err := g.run(ctx, bytes.NewReader(ov.content), "hash-object", "-w", "--stdin")
			if err != nil {
				return snapshot{}, err
			}
			mode := "100644"
			if ov.mode&0o100 != 0 {
				mode = "100755"
			}
			fmt.Fprintf(&given, "%s %s\t%s\n", mode, strings.TrimSpace(string(out)), p)
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); os.IsNotExist(err) {
			snap.absent = append(snap.absent, p)
		} else {
			present = append(present, p)
		}
	}
	var add []string
	if len(present) > 0 {
		out, err := g.run(ctx, nil, append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--"}, present...)...)
		if err != nil {
			return snapshot{}, err
		}
		listed := map[string]bool{}
		for _, p := range splitNUL(out) {
			listed[p] = true
			switch kind, why := s.classify(root, p); kind {
			case storeIt:
				add = append(add, p)
			case leaveOut:
				snap.notCovered = append(snap.notCovered, Uncovered{Path: strings.TrimSuffix(p, "/"), Reason: why})
			}
		}
		for _, p := range present {
			fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
			if err == nil && !fi.IsDir() && !listed[p] {
				snap.notCovered = append(snap.notCovered, Uncovered{Path: p, Reason: "ignored by .gitignore"})
			}
		}
	}
	if err := updateIndex(ctx, g, nil, add); err != nil {
		return snapshot{}, err
	}
	if given.Len() > 0 {
		if _, err := g.run(ctx, strings.NewReader(given.String()), "update-index", "--index-info"); err != nil {
			return snapshot{}, err
		}
	}
	var err error
	snap.tree, err = writeTree(ctx, g)
	slices.SortFunc(snap.notCovered, func(a, b Uncovered) int { return strings.Compare(a.Path, b.Path) })
	return snap, err
}

type entryKind int

const (
	storeIt  entryKind = iota
	notAFile           // gone since git listed it, or a directory now
	leaveOut           // there, but not stored: listed as not covered
)

// classify says whether a path git listed is stored, and if it is left
// out, why.
func (s *Store) classify(root, p string) (entryKind, string) {
	if strings.HasSuffix(p, "/") {
		// git lists a directory holding .git as one entry: a repository
		// of its own (a submodule, a nested clone), with its own history.
		return leaveOut, "a git repository of its own"
	}
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
	switch {
	case err != nil || fi.IsDir():
		return notAFile, ""
	case fi.Mode().IsRegular() && fi.Size() > s.opt.MaxFileSize:
		return leaveOut, fmt.Sprintf("larger than maxFileSize (%d bytes > %d)", fi.Size(), s.opt.MaxFileSize)
	case !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0:
		return leaveOut, "not a regular file or symlink"
	}
	return storeIt, ""
}

// updateIndex removes, then adds (hashing into the store), the given paths.
// Removal first lets a file replace a directory of the same name.
func updateIndex(ctx context.Context, g gitEnv, remove, add []string) error {
	if len(remove) > 0 {
		if _, err := g.run(ctx, nulList(remove), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return err
		}
	}
	if len(add) > 0 {
		if _, err := g.run(ctx, nulList(add), "update-index", "-z", "--add", "--replace", "--stdin"); err != nil {
			return err
		}
	}
	return nil
}

func writeTree(ctx context.Context, g gitEnv) (string, error) {
	out, err := g.run(ctx, nil, "write-tree")
	return strings.TrimSpace(string(out)), err
}

func nulList(paths []string) *strings.Reader {
	return strings.NewReader(strings.Join(paths, "\x00") + "\x00")
}

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
