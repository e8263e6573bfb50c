package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/frontmatter"
	"github.com/chatls/chatls/internal/keyenv"
	"github.com/chatls/chatls/provider"
	"github.com/chatls/chatls/surface"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
	"github.com/chatls/chatls/tools/custom"
	"github.com/chatls/chatls/tools/lsp"
	"github.com/chatls/chatls/tools/plugin"
)

// checkDiagnostics is what `chatls check` and `chatls parse --json` report
// for a document: parse diagnostics plus tool diagnostics (unknown tools,
// schema violations) against the built-ins and the configured plugins and
// MCP servers.
func checkDiagnostics(doc *chatdoc.Document) []chatdoc.Diagnostic {
	return checkTools().diagnostics(doc)
}

// checkWait bounds how long `chatls check` waits for a plugin or MCP server
// (tools.defaultTimeout if shorter).
const checkWait = 10 * time.Second

// checkToolSet is what `chatls check` and `chatls parse --json` know about
// tools: the built-ins, plus the tools of configured plugins and MCP servers,
// fetched only for documents that call a tool no loaded source declares.
// Each source is started at most once per run, only if it could declare
// such a name (an MCP server only SERVER:tool), and stopped again as soon as
// its tools are listed; its definitions stay for the following documents.
type checkToolSet struct {
	cfg    custom.Config
	stderr io.Writer
	reg    *tools.Registry
	tried  map[string]bool
	failed map[string]error
}

var checkTools = sync.OnceValue(func() *checkToolSet {
	cfg, err := customToolConfig("", os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "warning: %v; plugins and MCP servers are not checked\n", err)
	}
	return newCheckToolSet(cfg, os.Stderr)
})

func newCheckToolSet(cfg custom.Config, stderr io.Writer) *checkToolSet {
	return &checkToolSet{cfg: cfg, stderr: stderr, reg: tools.NewRegistry(lsp.WithBuiltins(builtin.Options{}, lsp.NewPool())),
		tried: map[string]bool{}, failed: map[string]error{}}
}

func (c *checkToolSet) diagnostics(doc *chatdoc.Document) []chatdoc.Diagnostic {
	c.loadFor(doc)
	diags := append(frontmatter.Diagnostics(doc), surface.ToolDiagnosticsParallel(doc, c.reg)...)
	for k, d := range diags {
		if d.Code != surface.CodeUnknownTool {
			continue
		}
		i := slices.IndexFunc(doc.ToolUses(), func(u *chatdoc.ToolUse) bool { return u != nil && u.NameSpan() == d.Span })
		if i < 0 {
			continue
		}
		if failed := c.failedFor(doc.ToolUses()[i].Name); len(failed) > 0 {
			diags[k].Message += fmt.Sprintf(" (not verified: %s did not load)", strings.Join(failed, ", "))
		}
	}
	return diags
}

// failedFor lists the sources that could have declared name but failed.
func (c *checkToolSet) failedFor(name string) []string {
	var out []string
	for _, src := range slices.Sorted(maps.Keys(c.failed)) {
		if custom.CouldProvide(src, name) {
			out = append(out, src)
		}
	}
	return out
}

// loadFor starts the sources that could declare a tool of doc that is not
// known yet, waits for them (bounded), keeps their definitions and stops them.
func (c *checkToolSet) loadFor(doc *chatdoc.Document) {
	if c.cfg.Empty() {
		return
	}
	var unknown []string
	for _, u := range doc.ToolUses() {
		if u == nil || u.Name == "" {
			continue
		}
		if _, ok := c.reg.Lookup(u.Name); !ok {
			unknown = append(unknown, u.Name)
		}
	}
	want := c.cfg.Only(func(src string) bool {
		return !c.tried[src] && slices.ContainsFunc(unknown, func(n string) bool { return custom.CouldProvide(src, n) })
	})
	if want.Empty() {
		return
	}
	if want.Timeout <= 0 || want.Timeout > checkWait {
		want.Timeout = checkWait
	}
	loaded := tools.NewRegistry(nil)
	set := custom.NewSet(loaded, nil)
	defer set.Close()
	changes := set.Reconcile(want)
	ctx, cancel := context.WithTimeout(context.Background(), want.Timeout+time.Second)
	defer cancel()
	_ = loaded.WaitReady(ctx)
	bySource := map[string][]tools.Tool{}
	for _, d := range loaded.List() {
		if t, ok := loaded.Lookup(d.Name); ok {
			bySource[d.Source] = append(bySource[d.Source], t)
		}
	}
	errs := loaded.SourceErrors()
	for _, src := range changes.Started { // config order: the first source wins a name
		c.tried[src] = true
		c.reg.Replace(src, bySource[src])
		if err := errs[src]; err != nil {
			c.failed[src] = err
			fmt.Fprintf(c.stderr, "warning: tool source %s: %s\n", src, strings.TrimSuffix(err.Error(), plugin.RetryNote))
		}
	}
}

// customToolConfig is the plugin and MCP configuration of the command line,
// read as the server reads it for a workspace at the current directory: the
// user file (or configPath), plus .chatls.toml only when the current
// directory is trusted (trust.workspaces) — an untrusted repository must not
// start programs. Unknown keys are warned about on stderr; a broken
// workspace file is ignored with a warning.
func customToolConfig(configPath string, stderr io.Writer) (custom.Config, error) {
	cfg, _, err := loadToolConfig(configPath, stderr)
	return cfg, err
}

// loadToolConfig is customToolConfig plus the effective settings of the
// current directory (its targets, for `chatls tools --target`).
func loadToolConfig(configPath string, stderr io.Writer) (custom.Config, config.Effective, error) {
	if configPath == "" {
		configPath = config.UserConfigPath()
	}
	root, err := os.Getwd()
	if err != nil {
		return custom.Config{}, config.Effective{}, fmt.Errorf("find the current directory: %w", err)
	}
	layers, warns, errs := config.LoadLayers(configPath, []string{root})
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if err := errs[configPath]; err != nil {
		return custom.Config{}, config.Effective{}, err
	}
	wsFile := filepath.Join(root, config.WorkspaceFile)
	if err := errs[wsFile]; err != nil {
		fmt.Fprintf(stderr, "warning: %v (ignored)\n", err)
		delete(layers.Workspaces, root)
	}
	trust := layers.User().Trust
	trusted := func(root string) bool { return approval.TrustedRoot(trust, root) }
	resolved := layers.Resolve(trusted)
	keyenv.SetConfigured(provider.KeyVars(resolved.All()...))
	if ws := layers.Workspaces[root]; !trusted(root) {
		if n := len(ws.Tools.Plugins) + len(ws.Tools.MCPServers); n > 0 {
			fmt.Fprintf(stderr, "note: %s declares %d plugin(s) or MCP server(s); they are not started because %s is not in trust.workspaces\n", wsFile, n, root)
		}
	}
	cfg, _ := custom.ConfigForLayers(layers, trusted)
	return cfg, resolved.For(root), nil
}

// documentFrontmatterOps parses a .chat file and returns its frontmatter's
// option changes for `chatls policy check --file`.
func documentFrontmatterOps(path string) ([]approval.FrontmatterOp, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", path, err)
	}
	ops, evalErr := approval.FromFrontmatter(chatdoc.Parse(string(data)).Frontmatter)
	return ops, evalErr, nil
}
