package custom

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/lsp"
)

// Session is the tools of one language-server session: the built-ins, and
// the plugin and MCP sources of the trusted settings, reconciled after
// every change of settings and closed at the end. Safe for concurrent use.
type Session struct {
	Registry *tools.Registry
	Set      *Set
	// LSP runs the language servers of the LSP tools.
	LSP *lsp.Pool
	// custom is false when plugins and MCP servers are off (tests).
	custom bool

	mu sync.Mutex
	// owners maps each source name to the workspace root it comes from
	// ("" = the user layers).
	owners map[string]string
	// hosts is the tools.web_fetch.allowHosts the built-ins were built with.
	hosts []string
}

// NewSession starts with the built-ins only; withCustom enables plugins
// and MCP servers.
func NewSession(log *zap.Logger, withCustom bool) *Session {
	pool := lsp.NewPool()
	reg := tools.NewRegistry(lsp.WithBuiltins(tools.BuiltinOptions{}, pool))
	return &Session{Registry: reg, Set: NewSet(reg, log), LSP: pool, custom: withCustom}
}

// Reconcile starts the sources the settings added, stops the ones they
// removed, restarts the changed ones and keeps the rest running. Only
// trusted layers start programs (ConfigForLayers).
func (s *Session) Reconcile(l config.Layers, trusted func(root string) bool) {
	if !s.custom {
		return
	}
	cfg, owners := ConfigForLayers(l, trusted)
	s.mu.Lock()
	s.owners = owners
	s.mu.Unlock()
	s.Set.Reconcile(cfg)
}

// UseBuiltins rebuilds the built-ins when tools.web_fetch.allowHosts
// changed.
func (s *Session) UseBuiltins(hosts []string) {
	s.mu.Lock()
	same := slices.Equal(hosts, s.hosts)
	s.hosts = slices.Clone(hosts)
	s.mu.Unlock()
	if !same {
		s.Registry.SetBuiltins(lsp.WithBuiltins(tools.BuiltinOptions{WebFetchAllowHosts: hosts}, s.LSP))
	}
}

// Description is one tool as chatls.listTools shows it.
type Description struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Source      string          `json:"source"`
	Schema      json.RawMessage `json:"schema"`
	Annotations map[string]any  `json:"annotations"`
}

// Describe lists every tool once the sources are ready or wait passed
// (an error only when ctx ends). With a workspace root, tools from another
// workspace's .chatls.toml are left out; "" lists all.
func (s *Session) Describe(ctx context.Context, wait time.Duration, root string) ([]Description, error) {
	waitCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := s.Registry.WaitReady(waitCtx); err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	s.mu.Lock()
	owners := s.owners
	s.mu.Unlock()
	defs := s.Registry.List()
	out := make([]Description, 0, len(defs))
	for _, d := range defs {
		if owner := owners[d.Source]; root != "" && owner != "" && owner != root {
			continue
		}
		out = append(out, Description{Name: d.Name, Description: d.Description, Source: d.Source, Schema: d.Schema, Annotations: d.Annotations})
	}
	return out, nil
}

// Close stops every source and language server.
func (s *Session) Close() error {
	s.LSP.Close()
	return s.Set.Close()
}
