package config

import (
	"os"
	"path/filepath"
	"strings"
)

// WorkspaceFile is the workspace configuration file at the workspace root.
const WorkspaceFile = ".chatls.toml"

// UserConfigPath is $XDG_CONFIG_HOME/chatls/config.toml (fallback ~/.config).
func UserConfigPath() string {
	return filepath.Join(xdgDir("XDG_CONFIG_HOME", ".config"), "chatls", "config.toml")
}

// StateDir is $XDG_STATE_HOME/chatls (fallback ~/.local/state/chatls): the
// execution journal and the decision log live there.
func StateDir() string {
	return filepath.Join(xdgDir("XDG_STATE_HOME", filepath.Join(".local", "state")), "chatls")
}

// xdgDir follows the XDG spec: a relative value is invalid and ignored.
func xdgDir(env, fallback string) string {
	if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = os.TempDir()
	}
	return filepath.Join(home, fallback)
}

// RootFor is the workspace root of the document at path: the innermost
// workspace folder holding it, else its directory (SPEC §4). A document
// without a path (an unsaved buffer) belongs to the first folder.
func RootFor(roots []string, path string) string {
	best := ""
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, "/")+"/") {
			if len(r) > len(best) {
				best = r
			}
		}
	}
	switch {
	case best != "":
		return best
	case path != "":
		return filepath.Dir(path)
	case len(roots) > 0:
		return roots[0]
	}
	return "."
}
