package custom

import (
	"strings"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools/mcp"
)

// Config is the set of plugin and MCP sources chatls should run.
type Config struct {
	Plugins    []config.Plugin
	MCPServers map[string]config.MCPServer
	// Timeout bounds each source's load (tools.defaultTimeout); 0 means 30 s.
	Timeout time.Duration
}

// ConfigFrom picks the custom tool sources out of trusted settings: user is
// the user-level settings (the user file overlaid with the editor's
// settings), workspaces the `.chatls.toml` files of trusted workspaces only
// — an untrusted workspace must never start a program. A workspace adds its
// plugins and MCP servers to the user's; an entry with the same name
// replaces the earlier one.
func ConfigFrom(user config.Settings, trustedWorkspaces ...config.Settings) Config {
	layers := append([]config.Settings{user}, trustedWorkspaces...)
	eff := config.Merge(layers...) // MCP servers merge by name there already
	var plugins []config.Plugin
	index := map[string]int{}
	for _, l := range layers {
		for _, p := range l.Tools.Plugins {
			if i, ok := index[p.Name]; ok {
				plugins[i] = p
				continue
			}
			index[p.Name] = len(plugins)
			plugins = append(plugins, p)
		}
	}
	return Config{Plugins: plugins, MCPServers: eff.MCPServers, Timeout: time.Duration(eff.DefaultTimeout) * time.Second}
}

// Empty reports whether no source is configured.
func (c Config) Empty() bool { return len(c.Plugins) == 0 && len(c.MCPServers) == 0 }

// Only keeps the sources whose names (plugin:NAME, mcp:NAME) keep says.
func (c Config) Only(keep func(source string) bool) Config {
	out := Config{Timeout: c.Timeout}
	for _, p := range c.Plugins {
		if keep("plugin:" + p.Name) {
			out.Plugins = append(out.Plugins, p)
		}
	}
	for name, srv := range c.MCPServers {
		if keep("mcp:" + name) {
			if out.MCPServers == nil {
				out.MCPServers = map[string]config.MCPServer{}
			}
			out.MCPServers[name] = srv
		}
	}
	return out
}

// CouldProvide reports whether the source named source (plugin:NAME or
// mcp:NAME) could declare the tool: a plugin any name, an MCP server only
// SERVER:tool names of its own.
func CouldProvide(source, tool string) bool {
	if server, ok := strings.CutPrefix(source, "mcp:"); ok {
		return strings.HasPrefix(strings.Replace(tool, ":", ".", 1), server+mcp.Separator)
	}
	return true
}
