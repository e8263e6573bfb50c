package approval

import (
	"path"
	"strings"

	"github.com/chatls/chatls/config"
)

// On a remote target (SPEC §8) a call is decided by the target's own
// autoApprove and deny lists plus the global deny lists: nothing else
// approves (no built-in defaults, no workspace or document approvals, no
// external resolvers, never the sandbox), and the presets' path rules
// apply to the target's root, resolved lexically.

// targetLayer is the target's autoApprove and deny lists as a settings
// layer, and the origin its rules are traced to.
func targetLayer(t *TargetPolicy, userFile string) (config.Settings, origin) {
	var s config.Settings
	s.Tools.AutoApprove, s.Tools.Deny = t.AutoApprove, t.Deny
	where := "targets." + t.Name
	if userFile != "" {
		where += " of your settings (" + userFile + ")"
	}
	return s, origin{layer: layerUser, file: where, trusted: true}
}

// targetSources rewrites src for a remote target.
func targetSources(src Sources) Sources {
	t := src.Target
	user := src.User
	// The target's own lists are applied after these, as a layer of
	// their own (targetLayer), so the trace names them.
	user.Tools.AutoApprove, user.Tools.AutoApproveAppend, user.Tools.AutoApproveRemove = nil, nil, nil
	user.Tools.Rules = denyRules(src.User.Tools.Rules)
	user.Tools.AutoApproveSandboxed = nil
	user.Tools.RequireApproval = nil
	user.Resolvers = nil
	ws := config.Settings{}
	ws.Tools.Deny = src.Workspace.Tools.Deny
	ws.Tools.Rules = denyRules(src.Workspace.Tools.Rules)
	src.User, src.Workspace = user, ws
	src.Frontmatter, src.SandboxActive, src.lexical = nil, false, true
	src.WorkspaceRoot = t.Root
	src.DocPath = ""
	if t.Root != "" {
		src.DocPath = path.Join(t.Root, ".chatls-target")
	}
	src.WorkspaceFile = ""
	return src
}

func denyRules(rules []config.Rule) []config.Rule {
	var out []config.Rule
	for _, r := range rules {
		if r.Decision == "deny" {
			out = append(out, r)
		}
	}
	return out
}

// lexicalPath resolves p against base without the filesystem. A path
// with ".." or "~" (whose meaning depends on the target's symlinks and
// home) resolves to "": inside no directory, so nothing approves it.
func lexicalPath(p, base string) string {
	if p == "" || strings.HasPrefix(p, "~") {
		return ""
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return ""
		}
	}
	if !path.IsAbs(p) {
		if base == "" || !path.IsAbs(base) {
			return ""
		}
		p = path.Join(base, p)
	}
	return path.Clean(p)
}

// canon is canonicalPath, lexical on a remote target.
func (e *Engine) canon(p, base, home string) string {
	if e.src.lexical {
		return lexicalPath(p, base)
	}
	return canonicalPath(p, base, home)
}

// IsTrustedRoot says whether the user's trust.workspaces covers root.
func IsTrustedRoot(root string, user config.Settings, home string) bool {
	return trustedRoot(root, user.Trust.Workspaces, home)
}
