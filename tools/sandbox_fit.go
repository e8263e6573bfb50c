package tools

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chatls/chatls/internal/fspath"
)

// maxMountArgs is what the view's mounts may take of bubblewrap's options:
// it takes at most 9,000 arguments (its MAX_ARGS), and the fixed options
// and the command need the rest.
var maxMountArgs = 8000

// foldAbove is where masked paths start to be masked a directory at a time:
// each mount costs more the more there are (200 take 70 ms, 1,000 take
// 0.9 s, 2,000 take 2.9 s here), and a call should not wait for them.
var foldAbove = 600

// mountArgs is how many options the view's mounts take (bwrapArgs).
func (v sandboxView) mountArgs() int {
	return 3*len(v.maskFiles) + 4*len(v.maskDirs) + 3*len(v.readOnly)
}

// fit makes the view's mounts fit bubblewrap, and few enough to be quick.
// A writable set with thousands of masked files (a local git clone in /tmp:
// its objects are hard links to files outside) would need an option for
// each; past foldAbove they are masked a directory at a time instead, the
// one holding most of them first — more is hidden, never less. A directory that must stay (keep: the writable roots, the
// working directory, the home directory, and what holds them) is never
// masked whole. Too many .git directories cannot be folded without making
// what is around them read-only: that is an error naming the count.
func (v sandboxView) fit(keep []string) (sandboxView, error) {
	for v.mountArgs() > foldAbove {
		chosen := v.foldable(keep, v.mountArgs()-foldAbove)
		if len(chosen) == 0 {
			break
		}
		v.maskDirs = append(v.maskDirs, slices.Collect(maps.Keys(chosen))...)
		v.maskFiles = dropInside(v.maskFiles, chosen)
		v.maskDirs = dropInside(v.maskDirs, chosen)
		v.readOnly = dropInside(v.readOnly, chosen)
		slices.Sort(v.maskDirs)
	}
	if n := v.mountArgs(); n > maxMountArgs {
		return v, fmt.Errorf("the writable set has %d .git directories and %d masked paths to protect, more than bubblewrap can mount (it takes %d options, these need %d); keep fewer repositories in the workspace and the temp directory, or set sandbox.writable narrower",
			len(v.readOnly), len(v.maskFiles)+len(v.maskDirs), maxMountArgs, n)
	}
	return v, nil
}

// foldable picks the directories to mask whole so as to save at least
// excess options, those whose masked paths save the most first (masking one
// costs an option set of its own). One level a round: a directory masked
// now may be folded into its parent in the next.
func (v sandboxView) foldable(keep []string, excess int) map[string]bool {
	saves := map[string]int{}
	for _, p := range v.maskFiles {
		saves[filepath.Dir(p)] += 3
	}
	for _, p := range v.maskDirs {
		saves[filepath.Dir(p)] += 4
	}
	type cand struct {
		dir  string
		save int
	}
	var cands []cand
	for d, n := range saves {
		if n -= 4; n > 0 && !mustStay(d, keep) {
			cands = append(cands, cand{d, n})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Or(b.save-a.save, strings.Compare(a.dir, b.dir)) })
	chosen := map[string]bool{}
	for _, c := range cands {
		if excess <= 0 {
			break
		}
		chosen[c.dir] = true
		excess -= c.save
	}
	return chosen
}

// dropInside removes the paths strictly inside one of dirs.
func dropInside(paths []string, dirs map[string]bool) []string {
	return slices.DeleteFunc(paths, func(p string) bool {
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			if dirs[d] {
				return true
			}
			if d == "/" || d == "." {
				return false
			}
		}
	})
}

// mustStay says whether d is one of keep or holds one.
func mustStay(d string, keep []string) bool {
	for _, k := range keep {
		if k != "" && fspath.Within(k, d) {
			return true
		}
	}
	return false
}
