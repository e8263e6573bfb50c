// Package custom runs the user's tool sources — plugin executables and MCP
// servers (SPEC §5) — for a tools.Registry: ConfigFrom picks them out of the
// trusted settings, and a Set starts, restarts and stops them as the
// settings change and tells callers which tools may still be loading.
package custom

import (
	"errors"
	"sync"

	"github.com/chatls/chatls/tools"
)

// Watcher is a source whose tool list can change after Load: an MCP server
// sending list_changed, a restarted plugin declaring other tools, a failed
// first load that succeeded on a retry.
type Watcher interface {
	OnToolsChanged(func([]tools.Tool))
}

// closeAll stops sources (plugin processes, MCP sessions) in parallel,
// since each may wait a grace period for its process.
func closeAll(sources []tools.Source) error {
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, s := range sources {
		wg.Go(func() { errs[i] = closeSource(s) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
