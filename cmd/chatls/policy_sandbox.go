package main

import (
	"os"
	"path/filepath"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
)

// sandboxLine says where a bash call checked by `chatls policy check` would
// run (docs/policy.md "Known limits"): "runs in the sandbox" (with or
// without network) or "runs outside the sandbox" and why. It reads the same
// files as the check: the user config, and the workspace's .chatls.toml as
// far as trust lets it count.
func sandboxLine(req approval.CheckRequest) string {
	if req.Target != "" && req.Target != "local" {
		return "sandbox: runs outside the sandbox (target " + req.Target + ": calls on a target — remote, or a terminal pane — never run in the sandbox)"
	}
	userFile := req.ConfigPath
	if userFile == "" {
		userFile = config.UserConfigPath()
	}
	user, _, err := config.LoadFile(userFile)
	if err != nil {
		user = config.Settings{}
	}
	root, _ := os.Getwd()
	ws, _, err := config.LoadFile(filepath.Join(root, config.WorkspaceFile))
	if err != nil {
		ws = config.Settings{}
	}
	home, _ := os.UserHomeDir()
	if !approval.IsTrustedRoot(root, user, home) {
		ws = config.UntrustedView(ws)
	}
	sb := config.Merge(user, ws).Sandbox
	if !sb.Enabled {
		return "sandbox: runs outside the sandbox (sandbox.enabled = false)"
	}
	if err := tools.SandboxAvailable(sb.Bwrap); err != nil {
		if sb.Required {
			return "sandbox: does not run: sandbox.enabled = true and the sandbox is unavailable here (" + err.Error() + "); only an approval with sandbox=off runs it, outside"
		}
		return "sandbox: runs outside the sandbox: the sandbox is unavailable here (" + err.Error() + ")"
	}
	if sb.Network {
		return "sandbox: runs in the sandbox (with network: sandbox.network = true)"
	}
	return "sandbox: runs in the sandbox (no network; an approval with sandbox=off runs it outside)"
}
