// Package fspath is the one place paths are resolved: the policy decides
// on the path this package gives, and the tools touch that same path
// (SPEC §4: globs match "the canonical path (symlinks resolved)").
//
// Resolution follows the kernel: component by component, each symlink
// replaced by its target before a later ".." applies — "link/.." is the
// directory holding the link's target, not the one holding the link, which
// a lexical filepath.Clean gets wrong.
package fspath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks is how many symlinks one resolution follows, as Linux's
// MAXSYMLINKS (40).
const maxLinks = 40

// ErrLoop is a path with too many levels of symbolic links.
var ErrLoop = errors.New("too many levels of symbolic links")

// Abs makes p absolute: "~" and "~/…" are under home, a relative path is
// relative to base. It does not clean the result: "l/.." must be resolved
// after the link l (see Resolve).
func Abs(p, base, home string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return strings.TrimSuffix(home, "/") + "/" + p[2:]
	case filepath.IsAbs(p):
		return p
	}
	return strings.TrimSuffix(base, "/") + "/" + p
}

// Canonical is Resolve(Abs(p, base, home)).
func Canonical(p, base, home string) (string, error) {
	return Resolve(Abs(p, base, home))
}

// Resolve resolves an absolute path the way the kernel does. Components
// that do not exist count as plain directories (a write creates them), and
// a dangling symlink is followed to its target, as creating a file through
// it would. The result holds no symlink, ".", ".." or empty component.
func Resolve(abs string) (string, error) {
	if !filepath.IsAbs(abs) {
		return "", errors.New("not an absolute path: " + abs)
	}
	return ResolveFrom("/", abs)
}

// ResolveFrom resolves rel (or an absolute path) from base, which must be
// canonical already (a Resolve result): a relative argument in a known
// directory costs one lstat per own component.
func ResolveFrom(base, rel string) (string, error) { return resolveFrom(base, rel, false) }

// ErrProc says a path leads into /proc, where links (self, thread-self,
// fd/N, PID/cwd, PID/root) name a different thing in each process.
var ErrProc = errors.New("the path leads into /proc, which means something else in each process")

// ResolveForOther is ResolveFrom for a path another process will open (the
// policy judging a bash command): it fails with ErrProc instead of
// following /proc's links in this process — /dev/fd/3 or /proc/self/cwd
// resolved here describe chatls, not the program that opens them.
func ResolveForOther(base, rel string) (string, error) { return resolveFrom(base, rel, true) }

func resolveFrom(base, rel string, noProc bool) (string, error) {
	parts := strings.Split(rel, "/")
	cur := base
	if filepath.IsAbs(rel) {
		cur = "/"
	}
	missing := false // cur does not exist: nothing below it can be a link
	for links := 0; len(parts) > 0; {
		if noProc && Within(cur, "/proc") {
			return "", ErrProc
		}
		part := parts[0]
		parts = parts[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			missing = false
			if cur != "/" {
				if _, err := os.Lstat(cur); err != nil {
					missing = true
				}
			}
			continue
		}
		next := filepath.Join(cur, part)
		if missing {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			cur, missing = next, true
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", ErrLoop
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		// The target's own components, unresolved, go first: a link to
		// "a/../b" is resolved like a path written that way.
		parts = append(strings.Split(target, "/"), parts...)
	}
	if noProc && Within(cur, "/proc") {
		return "", ErrProc
	}
	return cur, nil
}

// Within reports whether p is dir or inside it (both canonical).
func Within(p, dir string) bool {
	if dir == "" {
		return false
	}
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// Innermost is the deepest of dirs (canonical) holding p, or "".
func Innermost(p string, dirs []string) string {
	best := ""
	for _, d := range dirs {
		if Within(p, d) && len(d) > len(best) {
			best = d
		}
	}
	return best
}

// Open opens the root directory dir (canonical) holding p (canonical) and
// returns p's name inside it: operations through the root cannot leave it,
// also when a component of p is swapped for a symlink after p was decided
// on — the file decided on is the file touched, or the operation fails.
func Open(dir, p string) (*os.Root, string, error) {
	if !Within(p, dir) {
		return nil, "", errors.New(p + " is not inside " + dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, strings.TrimSuffix(dir, "/")), "/")
	if rel == "" {
		rel = "."
	}
	return root, rel, nil
}

// WithinAny reports whether p is inside one of dirs (all canonical).
func WithinAny(p string, dirs []string) bool { return Innermost(p, dirs) != "" }
