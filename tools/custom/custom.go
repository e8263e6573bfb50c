// Package custom builds the user's tool sources — plugin executables and MCP
// servers (SPEC §5) — from settings, and hooks them to a tools.Registry.
package custom

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/mcp"
	"github.com/chatls/chatls/tools/plugin"
	"go.uber.org/zap"
)

// Sources returns one source per `tools.plugins` entry (in config order),
// then one per `tools.mcpServers` entry (sorted by name). Nothing starts
// until the registry loads them.
func Sources(settings config.Settings, logger *zap.Logger) []tools.Source {
	var out []tools.Source
	for _, p := range settings.Tools.Plugins {
		out = append(out, plugin.NewSource(p, logger))
	}
	for _, name := range slices.Sorted(maps.Keys(settings.Tools.MCPServers)) {
		out = append(out, mcp.NewSource(name, settings.Tools.MCPServers[name], logger))
	}
	return out
}

// Watcher is a source whose tool list can change after Load: an MCP server
// sending list_changed, a restarted plugin declaring other tools.
type Watcher interface {
	OnToolsChanged(func([]tools.Tool))
}

// Register adds every source to reg (loading in the background, each
// bounded by timeout — `tools.defaultTimeout`) and routes later list
// changes to reg.Replace.
func Register(reg *tools.Registry, sources []tools.Source, timeout time.Duration) {
	for _, s := range sources {
		if w, ok := s.(Watcher); ok {
			name := s.Name()
			w.OnToolsChanged(func(list []tools.Tool) { reg.Replace(name, list) })
		}
		reg.AddSource(s, timeout)
	}
}

// Close stops every source (plugin processes, MCP sessions) in parallel,
// since each may wait a grace period for its process; call it on shutdown
// and before replacing sources after a config change.
func Close(sources []tools.Source) error {
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, s := range sources {
		if c, ok := s.(interface{ Close() error }); ok {
			wg.Go(func() { errs[i] = c.Close() })
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}
