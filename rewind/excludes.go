package rewind

import (
	"os"
	"path/filepath"
	"strings"
)

// userExclude is the info/exclude of the user's repository holding root,
// if there is one: the user's private ignore rules count as much as the
// .gitignore files git reads in the work tree. It is only read, never
// written. The repository is found as git would (root or a parent holding
// .git, a directory or a worktree's "gitdir:" file); its patterns are
// applied relative to root.
func userExclude(root string) string {
	for dir := root; ; {
		if gitDir := dotGit(filepath.Join(dir, ".git")); gitDir != "" {
			path := filepath.Join(commonDir(gitDir), "info", "exclude")
			if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
				return path
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// dotGit is the git directory that a .git entry stands for, or "".
func dotGit(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return path
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return target
}

// commonDir is where a linked worktree's shared files (info/ among them) live.
func commonDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	common := strings.TrimSpace(string(data))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return common
}
