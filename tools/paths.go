package tools

import (
	"fmt"
	"os"
	"strings"

	"github.com/chatls/chatls/internal/fspath"
)

// toolPath resolves a tool's path argument the way the policy does
// (fspath: the kernel's semantics, symlinks before ".."): `~/` is the home
// directory, relative paths are relative to the document's directory. It
// is the path the policy decided on, and the one the tool touches.
func toolPath(env Env, p string) (string, error) {
	home, _ := os.UserHomeDir()
	base := env.Dir
	if base == "" {
		base, _ = os.Getwd()
	}
	return fspath.Canonical(p, base, home)
}

// WriteTarget resolves a path a tool writes. When writes are restricted
// (Env.RestrictWrites, or the sandbox on) a path outside every writable
// directory is refused. It returns the canonical path and the directory
// the write goes through (fspath.Open): the innermost writable directory
// holding it, else "/" — so the file decided on is the file written, and a
// symlink swapped in meanwhile cannot carry the write out of it.
func (env Env) WriteTarget(shown string) (target, through string, err error) {
	target, err = toolPath(env, shown)
	if err != nil {
		return "", "", fmt.Errorf("Cannot resolve %s: %v", shown, err)
	}
	dirs := writableDirs(env)
	if through = fspath.Innermost(target, dirs); through != "" {
		return target, through, nil
	}
	if !env.RestrictWrites && !env.Sandbox.Enabled {
		return target, "/", nil
	}
	return "", "", fmt.Errorf("Refusing to write %s: %s is outside the writable directories (%s). Ask the user or add the directory to sandbox.writable.",
		shown, target, strings.Join(dirs, ", "))
}

// OpenWrite opens the root a write goes through (see WriteTarget) and
// returns the target's name inside it.
func (env Env) OpenWrite(shown string) (*os.Root, string, error) {
	target, through, err := env.WriteTarget(shown)
	if err != nil {
		return nil, "", err
	}
	root, rel, err := fspath.Open(through, target)
	if err != nil {
		return nil, "", fmt.Errorf("Cannot write %s: %v", shown, err)
	}
	return root, rel, nil
}

// writableDirs is the canonical writable set: Env.Writable plus sandbox.writable.
func writableDirs(env Env) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range append(append([]string{}, env.Writable...), env.Sandbox.Writable...) {
		if d == "" {
			continue
		}
		c, err := toolPath(env, d)
		if err != nil || seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	return out
}

// ReadPath is toolPath for tools that only look (read, ls, find, grep, the
// bash directory): a path that cannot be resolved (a symlink loop) is
// given as written, and opening it reports the loop.
func (env Env) ReadPath(p string) string {
	if c, err := toolPath(env, p); err == nil {
		return c
	}
	home, _ := os.UserHomeDir()
	return fspath.Abs(p, env.Dir, home)
}
