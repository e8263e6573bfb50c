package builtin

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// skippedDirs are never descended into by grep, find and ls: version-control
// metadata and directories that hold other people's code or caches, never
// the project's own source. Build outputs (build, dist, target, …) are not
// here: `go/build` and `cmd/dist` are real source; inside a git work tree a
// .gitignore excludes them where they are outputs.
var skippedDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true, ".bzr": true,
	"node_modules": true, "vendor": true, "__pycache__": true, ".venv": true,
	".tox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
}

// walkFiles calls visit for every regular file under root (or root itself
// when it is a file) in lexical order, skipping skippedDirs, what the
// .gitignore files of root's git work tree exclude and what the policy
// denies reading (hidden, may be nil), below root.
// Unreadable directories are skipped silently, as grep -s does.
func walkFiles(ctx context.Context, root string, hidden func(string) bool, visit func(path string, d fs.DirEntry) error) error {
	ig := newIgnorer(root)
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path == root {
			if d.IsDir() {
				return nil
			}
		} else if d.IsDir() {
			if skippedDirs[d.Name()] || ig.ignored(path, true) || hidden != nil && hidden(path) {
				return fs.SkipDir
			}
			ig.enter(path)
			return nil
		}
		if !d.Type().IsRegular() || (path != root && ig.ignored(path, false)) || hidden != nil && hidden(path) {
			return nil
		}
		return visit(path, d)
	})
}

// displayPath joins the path the model gave with a path below it, so output
// reads like `grep -rn PATTERN src`: src/a.go, or a.go for ".". See quoteName.
func displayPath(shownRoot, root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return quoteName(path)
	}
	if rel == "." {
		return quoteName(shownRoot)
	}
	if shownRoot == "" || shownRoot == "." {
		return quoteName(filepath.ToSlash(rel))
	}
	return quoteName(filepath.ToSlash(filepath.Join(shownRoot, rel)))
}

// quoteName shows a file name on one line: a name holding a control
// character (newline, tab, escape…), invalid UTF-8 or a leading double quote
// is written as a double-quoted string with Go/JSON-style escapes
// ("a\nb.txt"), which is also how a tool input must spell it. Other names are
// shown as they are.
func quoteName(name string) string {
	if !utf8.ValidString(name) || strings.HasPrefix(name, `"`) ||
		strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) >= 0 {
		return strconv.Quote(name)
	}
	return name
}

// countHidden wraps the policy's hidden (may be nil) so that n counts the
// paths a walk skipped because of it; the walk calls it from one goroutine.
func countHidden(hidden func(string) bool, n *int) func(string) bool {
	if hidden == nil {
		return nil
	}
	return func(p string) bool {
		if hidden(p) {
			*n++
			return true
		}
		return false
	}
}

// hiddenNote says a search skipped n paths the policy hides, and how to
// search one of them.
func hiddenNote(tool string, n int) string {
	noun := "paths"
	if n == 1 {
		noun = "path"
	}
	return fmt.Sprintf("[Skipped %d %s the policy hides: sensitive files (.env*, *credentials*, keys, .ssh/ …) and paths a deny rule covers. A rule that names a sensitive path, e.g. %s(.env), lets %s search it.]", n, noun, tool, tool)
}
