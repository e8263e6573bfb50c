package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// resolvePath makes a tool's path argument absolute: `~/` is the home
// directory, relative paths are relative to the document's directory.
func resolvePath(env Env, p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		base := env.Dir
		if base == "" {
			base, _ = os.Getwd()
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// canonicalPath resolves `..` and every symlink of an absolute path, also
// when its last components do not exist yet (a file about to be written):
// the longest existing prefix is resolved and the rest appended.
func canonicalPath(p string) (string, error) {
	p = filepath.Clean(p)
	rest := ""
	for i := 0; i < 256; i++ {
		resolved, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(resolved, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			// A dangling symlink is ErrNotExist too; anything else (loops, permissions) is refused.
			return "", err
		}
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			// Dangling symlink: follow it by hand so writing through it is checked at its target.
			target, rerr := os.Readlink(p)
			if rerr != nil {
				return "", rerr
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			p = filepath.Clean(target)
			continue
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	return "", fmt.Errorf("too many levels of symbolic links")
}

// checkWritable refuses, when writes are restricted (Env.RestrictWrites, or
// the sandbox on), a path whose canonical form
// lies outside every canonical writable directory. It returns the canonical
// path, which is what the caller must then write.
func checkWritable(env Env, abs, shown string) (string, error) {
	canon, err := canonicalPath(abs)
	if err != nil {
		return "", fmt.Errorf("Cannot resolve %s: %v", shown, err)
	}
	if !env.RestrictWrites && !env.Sandbox.Enabled {
		return canon, nil
	}
	for _, dir := range writableDirs(env) {
		if within(canon, dir) {
			return canon, nil
		}
	}
	return "", fmt.Errorf("Refusing to write %s: %s is outside the writable directories (%s). Ask the user or add the directory to sandbox.writable.",
		shown, canon, strings.Join(writableDirs(env), ", "))
}

// writableDirs is the canonical writable set: Env.Writable plus sandbox.writable.
func writableDirs(env Env) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range append(append([]string{}, env.Writable...), env.Sandbox.Writable...) {
		if d == "" {
			continue
		}
		c, err := canonicalPath(resolvePath(env, d))
		if err != nil || seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	return out
}

// within reports whether p is dir or below it (both canonical).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
