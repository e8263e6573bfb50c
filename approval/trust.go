package approval

import (
	"maps"
	"os"
	"path/filepath"
	"slices"

	"go.uber.org/zap"

	"github.com/chatls/chatls/config"
)

// TrustedRoot reports whether the user's trust.workspaces globs match the
// workspace root: then its .chatls.toml and the frontmatter of its
// documents may widen approvals and start programs (SPEC §4).
func TrustedRoot(trust config.Trust, root string) bool {
	home, _ := os.UserHomeDir()
	return trustedRoot(root, trust.Workspaces, home)
}

// ValidateLayers compiles the policy of a candidate configuration: each
// trusted layer alone, so an error names its own source, then every
// workspace over the merged user layers. labels name the editor layers in
// errors (they have no file).
func ValidateLayers(l config.Layers, initLabel, pulledLabel string, log *zap.Logger) error {
	user := l.User()
	named := []struct {
		s     config.Settings
		label string
	}{{l.UserFile, l.UserPath}, {l.InitOptions, initLabel}, {l.Pulled, pulledLabel}}
	for _, layer := range named {
		alone := layer.s
		alone.Tools.Presets = user.Tools.Presets // presets may be defined in another layer
		if _, err := NewEngine(Sources{User: alone, UserFile: layer.label}, log); err != nil {
			return err
		}
	}
	for _, root := range slices.Sorted(maps.Keys(l.Workspaces)) {
		if _, err := NewEngine(Sources{
			User: user, UserFile: l.UserPath,
			Workspace: l.Workspaces[root], WorkspaceFile: filepath.Join(root, config.WorkspaceFile), WorkspaceRoot: root,
		}, log); err != nil {
			return err
		}
	}
	return nil
}
