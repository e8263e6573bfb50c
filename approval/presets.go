package approval

import "github.com/chatls/chatls/config"

// builtinPresets are SPEC §4's presets. Tool names inside presets are
// limited by path: reads inside the workspace, writes inside the writable set.
func builtinPresets() map[string]config.Preset {
	return map[string]config.Preset{
		"$git-read": {Approve: []string{"git_status", "git_diff", "git_log", "git_branch"}},
		"$lsp":      {Approve: []string{"diagnostics", "symbols", "hover", "definition", "references"}},
		"$readonly": {Approve: []string{"read", "grep", "find", "ls", "$git-read", "$lsp"}},
		"$default":  {Approve: []string{"read", "write", "edit", "mkdir", "copy"}},
		"$standard": {Approve: []string{"read", "write", "edit", "mkdir", "copy", "grep", "find", "ls", "$git-read", "$lsp"}},
	}
}

// defaultAutoApprove applies when no layer sets tools.autoApprove.
var defaultAutoApprove = []string{"$default"}
