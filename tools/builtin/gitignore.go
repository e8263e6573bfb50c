package builtin

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// .gitignore support for grep and find, as ripgrep does it by default: inside
// a git work tree (a `.git` in the search root or above), the `.gitignore`
// files of the work tree root, of every directory down to the search root and
// of every directory searched apply, deeper files overriding higher ones.
// Not read: .git/info/exclude, core.excludesFile, .ignore files.

// ignoreRule is one line of a .gitignore (gitignore(5) syntax).
type ignoreRule struct {
	negate  bool // "!pattern": re-include
	dirOnly bool // "pattern/": directories only
	// name is set for a pattern without "/" or glob characters: it matches
	// base names exactly (the common case: "node_modules", "build").
	name string
	// glob matches base names when anchored is false, else the path relative
	// to the .gitignore's directory (doublestar syntax).
	glob     string
	anchored bool
}

// ignoreFile holds the rules of one .gitignore and the directory it governs.
type ignoreFile struct {
	dir   string
	rules []ignoreRule
}

// parseGitignore reads the rules of data; malformed lines are skipped.
func parseGitignore(dir string, data []byte) *ignoreFile {
	f := &ignoreFile{dir: dir}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// Trailing spaces are ignored unless escaped with a backslash.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		// A slash at the start or in the middle anchors the pattern to the
		// .gitignore's directory; without one it matches at any depth.
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		// gitignore has no {a,b} alternatives: braces are literal.
		line = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(line)
		switch {
		case !r.anchored && !strings.ContainsAny(line, `*?[\`):
			r.name = line
		case doublestar.ValidatePattern(line):
			r.glob = line
		default:
			continue
		}
		f.rules = append(f.rules, r)
	}
	return f
}

// match reports whether the rules of f decide about path (absolute, below
// f.dir): matched says a rule applied, ignored what the last one said.
func (f *ignoreFile) match(path string, isDir bool) (matched, ignored bool) {
	rel := ""
	base := filepath.Base(path)
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		ok := false
		switch {
		case r.name != "":
			ok = r.name == base
		case !r.anchored:
			ok = doublestar.MatchUnvalidated(r.glob, base)
		default:
			if rel == "" {
				rel = filepath.ToSlash(strings.TrimPrefix(path, f.dir+string(filepath.Separator)))
			}
			ok = doublestar.MatchUnvalidated(r.glob, rel)
		}
		if ok {
			return true, !r.negate
		}
	}
	return false, false
}

// ignorer applies the .gitignore files along a depth-first walk. The zero
// value (outside a git work tree) ignores nothing.
type ignorer struct {
	active bool
	stack  []*ignoreFile // the files of the current path's ancestors, outermost first
}

// newIgnorer finds the git work tree holding root and loads the .gitignore
// files from its top down to root (root's own included).
func newIgnorer(root string) *ignorer {
	ig := &ignorer{}
	top := ""
	for dir := root; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			top = dir
			break
		}
		if filepath.Dir(dir) == dir {
			return ig
		}
	}
	ig.active = true
	rel, err := filepath.Rel(top, root)
	if err != nil {
		return ig
	}
	dir := top
	ig.load(dir)
	if rel != "." {
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			dir = filepath.Join(dir, part)
			ig.load(dir)
		}
	}
	return ig
}

// load pushes dir's .gitignore, if it has one.
func (ig *ignorer) load(dir string) {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return
	}
	if f := parseGitignore(dir, data); len(f.rules) > 0 {
		ig.stack = append(ig.stack, f)
	}
}

// ignored reports whether path (below the walk's root) is ignored; the walk
// calls it in depth-first order, and for a directory that is not ignored,
// enter next, so that the stack always holds the current path's ancestors.
func (ig *ignorer) ignored(path string, isDir bool) bool {
	if !ig.active {
		return false
	}
	for len(ig.stack) > 0 && !strings.HasPrefix(path, ig.stack[len(ig.stack)-1].dir+string(filepath.Separator)) {
		ig.stack = ig.stack[:len(ig.stack)-1]
	}
	// The deepest file with a matching rule decides.
	for i := len(ig.stack) - 1; i >= 0; i-- {
		if matched, ignored := ig.stack[i].match(path, isDir); matched {
			return ignored
		}
	}
	return false
}

// enter loads the .gitignore of a directory the walk descends into.
func (ig *ignorer) enter(dir string) {
	if ig.active {
		ig.load(dir)
	}
}
