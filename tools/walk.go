package tools

import (
	"context"
	"io/fs"
	"path/filepath"
)

// skippedDirs are never descended into by grep, find and ls: version control,
// dependency and build caches (Flemma's default excludes plus the usual kin).
var skippedDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true, ".bzr": true,
	"node_modules": true, "vendor": true, "__pycache__": true, ".venv": true, "venv": true,
	".tox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
	"target": true, "dist": true, "build": true, ".next": true, ".gradle": true, ".idea": true,
}

// walkFiles calls visit for every regular file under root (or root itself
// when it is a file) in lexical order, skipping skippedDirs below root.
// Unreadable directories are skipped silently, as grep -s does.
func walkFiles(ctx context.Context, root string, visit func(path string, d fs.DirEntry) error) error {
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
		if d.IsDir() {
			if path != root && skippedDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return visit(path, d)
	})
}

// displayPath joins the path the model gave with a path below it, so output
// reads like `grep -rn PATTERN src`: src/a.go, or a.go for ".".
func displayPath(shownRoot, root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	if rel == "." {
		return shownRoot
	}
	if shownRoot == "" || shownRoot == "." {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(filepath.Join(shownRoot, rel))
}
