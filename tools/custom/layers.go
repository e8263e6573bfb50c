package custom

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chatls/chatls/config"
)

// ConfigForLayers picks the plugin and MCP sources out of a session's
// layers: the trusted user layers and the .chatls.toml of trusted
// workspaces (an untrusted repository never starts a program). owners maps
// each source name (plugin:NAME, mcp:NAME) to the workspace root it comes
// from ("" for the user layers). Relative program paths of a workspace
// file are relative to its root.
func ConfigForLayers(l config.Layers, trusted func(root string) bool) (cfg Config, owners map[string]string) {
	user := l.User()
	var roots []string
	var workspaces []config.Settings
	for _, root := range slices.Sorted(maps.Keys(l.Workspaces)) {
		if trusted(root) {
			roots = append(roots, root)
			workspaces = append(workspaces, anchorPrograms(root, l.Workspaces[root]))
		}
	}
	owners = map[string]string{}
	for i, s := range append([]config.Settings{user}, workspaces...) {
		owner := ""
		if i > 0 {
			owner = roots[i-1]
		}
		for _, p := range s.Tools.Plugins {
			owners["plugin:"+p.Name] = owner
		}
		for name := range s.Tools.MCPServers {
			owners["mcp:"+name] = owner
		}
	}
	return ConfigFrom(user, workspaces...), owners
}

// anchorPrograms makes the relative program paths of a workspace file
// relative to its workspace root (bare names stay: they are looked up in $PATH).
func anchorPrograms(root string, ws config.Settings) config.Settings {
	anchor := func(p string) string {
		if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "~") || !strings.ContainsRune(p, '/') {
			return p
		}
		return filepath.Join(root, p)
	}
	plugins := slices.Clone(ws.Tools.Plugins)
	for i := range plugins {
		plugins[i].Path = anchor(plugins[i].Path)
	}
	servers := maps.Clone(ws.Tools.MCPServers)
	for name, m := range servers {
		m.Command = anchor(m.Command)
		servers[name] = m
	}
	ws.Tools.Plugins, ws.Tools.MCPServers = plugins, servers
	return ws
}
