package custom

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
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
	reg := tools.NewRegistry(lsp.WithBuiltins(builtin.Options{}, pool))
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
		s.Registry.SetBuiltins(lsp.WithBuiltins(builtin.Options{WebFetchAllowHosts: hosts}, s.LSP))
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

// Markdown is the tool list as a document an editor renders: a table of
// names, sources and first description lines, then each tool's inputs.
func Markdown(list []Description) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Tools (%d)\n\n| tool | from | what it does |\n|---|---|---|\n", len(list))
	for _, d := range list {
		first, _, _ := strings.Cut(strings.TrimSpace(d.Description), "\n")
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.Name, d.Source, strings.ReplaceAll(first, "|", `\|`))
	}
	for _, d := range list {
		fmt.Fprintf(&b, "\n## `%s`\n\n%s\n", d.Name, strings.TrimSpace(d.Description))
		if inputs := schemaInputs(d.Schema); inputs != "" {
			b.WriteString("\nInputs:\n\n" + inputs)
		}
	}
	return b.String()
}

// schemaInputs lists a JSON schema's properties: name, type, required,
// description.
func schemaInputs(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		req := ""
		if slices.Contains(s.Required, name) {
			req = ", required"
		}
		fmt.Fprintf(&b, "- `%s` (%v%s)", name, p.Type, req)
		if d := strings.TrimSpace(p.Description); d != "" {
			b.WriteString(": " + strings.ReplaceAll(d, "\n", " "))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
