package rewind

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Collect deletes the checkpoints older than KeepDays and the objects only
// they held, so the store does not grow forever. A workspace with no whole
// snapshot for that long loses its private index too (the next snapshot
// hashes its files again). It holds the store's lock exclusively, so no
// checkpoint is half-written while git prunes.
func (s *Store) Collect(ctx context.Context) error {
	unlock, err := flock(ctx, s.private("gc.lock"), false)
	if err != nil {
		return err
	}
	defer unlock()
	g := s.git("", "")
	out, err := g.run(ctx, nil, "for-each-ref", "--format=%(refname) %(committerdate:unix)", refRoot, workspaceRef)
	if err != nil {
		return err
	}
	cutoff := s.opt.Now().Add(-time.Duration(s.opt.KeepDays) * 24 * time.Hour).Unix()
	oldCalls := map[string]bool{} // a call's ref directory, by its before's age
	var refs []string
	var deletes strings.Builder
	for line := range strings.Lines(string(out)) {
		name, date, _ := strings.Cut(strings.TrimSpace(line), " ")
		t, err := strconv.ParseInt(date, 10, 64)
		if err != nil {
			continue
		}
		refs = append(refs, name)
		if t >= cutoff {
			continue
		}
		if rest, ok := strings.CutPrefix(name, workspaceRef); ok {
			deletes.WriteString("delete " + name + "\n")
			_ = os.RemoveAll(s.private("workspaces", rest))
		} else if path.Base(name) == stageBefore {
			oldCalls[path.Dir(name)] = true
		}
	}
	for _, name := range refs {
		if oldCalls[path.Dir(name)] {
			deletes.WriteString("delete " + name + "\n")
		}
	}
	if deletes.Len() > 0 {
		if _, err := g.run(ctx, strings.NewReader(deletes.String()), "update-ref", "--stdin"); err != nil {
			return err
		}
	}
	// Indexes of checkpoints interrupted by a crash; none is in use now.
	if tmp, err := os.ReadDir(s.private("tmp")); err == nil {
		for _, e := range tmp {
			_ = os.Remove(filepath.Join(s.private("tmp"), e.Name()))
		}
	}
	_, err = g.run(ctx, nil, "gc", "--prune=now", "--quiet")
	return err
}
