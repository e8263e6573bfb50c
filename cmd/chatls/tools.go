package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/chatls/chatls/internal/clip"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
	"github.com/chatls/chatls/tools/custom"
	"github.com/chatls/chatls/tools/lsp"
	"github.com/chatls/chatls/tools/plugin"
)

// toolJSON is one tool in `chatls tools --json` (and chatls.listTools).
type toolJSON struct {
	Name            string          `json:"name"`
	Source          string          `json:"source"`
	Description     string          `json:"description"`
	Schema          json.RawMessage `json:"schema,omitempty"`
	Annotations     map[string]any  `json:"annotations,omitempty"`
	PreviewTemplate string          `json:"previewTemplate,omitempty"`
	// RunsOn is where a call runs, with --target: the target or "here".
	RunsOn string `json:"runsOn,omitempty"`
}

// runTools implements `chatls tools [--json] [--wait DURATION] [--config FILE]
// [--target NAME]`: the built-ins plus the plugins and MCP servers of the
// user config (and of .chatls.toml when the current directory is a trusted
// workspace), started, listed and stopped again. With --target, what that
// target offers and where each tool runs, after a probe of the target.
func runTools(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the tools with their schemas as JSON")
	wait := fs.Duration("wait", 30*time.Second, "how long to wait for plugin and MCP tool sources at most")
	configPath := fs.String("config", "", "user config file (default $XDG_CONFIG_HOME/chatls/config.toml)")
	targetName := fs.String("target", "", "list what target NAME of your trusted settings offers, and check that it can be reached")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: chatls tools [--json] [--wait DURATION] [--config FILE] [--target NAME]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if configMissing(*configPath, stderr) {
		return 2
	}
	cfg, eff, err := loadToolConfig(*configPath, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "chatls tools:", err)
		return 1
	}
	var target *tools.TargetEnv
	if name := *targetName; name != "" {
		ts, ok := eff.Targets[name]
		if !ok && name != "local" {
			fmt.Fprintf(stderr, "chatls tools: target %s is not defined in your trusted settings (targets.%s)\n", name, name)
			return 1
		}
		if ok {
			target = tools.TargetFromSettings(name, ts)
			defer target.Close()
		}
	}

	// Ctrl-C ends the wait, not the cleanup: sources are always stopped.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *wait)
	defer cancel()
	reg := tools.NewRegistry(lsp.WithBuiltins(builtin.Options{}, lsp.NewPool()))
	set := startToolSources(reg, cfg)
	defer set.Close()
	if err := reg.WaitReady(ctx); err != nil {
		fmt.Fprintf(stderr, "warning: some tool sources did not load within %s\n", *wait)
	}
	errs := reg.SourceErrors()
	for _, n := range slices.Sorted(maps.Keys(errs)) {
		// The sources stop when this command ends: no background retries.
		fmt.Fprintf(stderr, "warning: %s: %s\n", n, strings.TrimSuffix(errs[n].Error(), plugin.RetryNote))
	}

	defs := reg.List()
	if target != nil {
		probeTarget(ctx, target, stderr)
		defs = tools.OfferedOnTarget(target, defs)
	}
	if *asJSON {
		out := make([]toolJSON, 0, len(defs))
		for _, d := range defs {
			tj := toolJSON{
				Name: d.Name, Source: d.Source, Description: d.Description,
				Schema: d.Schema, Annotations: d.Annotations, PreviewTemplate: d.PreviewTemplate,
			}
			if target != nil {
				tj.RunsOn = tools.RunsWhere(target, d)
			}
			out = append(out, tj)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "chatls tools:", err)
			return 1
		}
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	if target == nil {
		fmt.Fprintln(tw, "NAME\tSOURCE\tPARAMETERS\tDESCRIPTION")
	} else {
		fmt.Fprintln(tw, "NAME\tSOURCE\tRUNS ON\tPARAMETERS\tDESCRIPTION")
	}
	for _, d := range defs {
		fmt.Fprintf(tw, "%s\t%s\t", d.Name, d.Source)
		if target != nil {
			fmt.Fprintf(tw, "%s\t", tools.RunsWhere(target, d))
		}
		fmt.Fprintf(tw, "%s\t%s\n", paramSummary(d.Schema), firstSentence(d.Description))
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return 0
}

// startToolSources is a variable so tests can add sources of their own.
var startToolSources = func(reg *tools.Registry, cfg custom.Config) *custom.Set {
	set := custom.NewSet(reg, nil)
	set.Reconcile(cfg)
	return set
}

// probeTarget says on stderr where the target's calls go, or why they
// would fail; the list is printed either way.
func probeTarget(ctx context.Context, t *tools.TargetEnv, stderr io.Writer) {
	where, err := tools.ProbeTarget(ctx, t)
	if where != "" {
		fmt.Fprintf(stderr, "target %s: %s\n", t.Name, where)
	}
	if err != nil {
		fmt.Fprintf(stderr, "warning: %s\n", err)
	}
}

// firstSentence keeps the table one line per tool.
func firstSentence(s string) string {
	s = clip.Spaces(s)
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return clip.Runes(s, 100)
}

// paramSummary renders a tool's input schema as its parameter names,
// required ones first, optional ones (not required, or nullable) marked
// `?`, and `label` — every built-in's optional label — last:
// `path, offset?, limit?, label?`. A schema without properties is `any`,
// declared empty properties `-`.
func paramSummary(schema json.RawMessage) string {
	var s struct {
		Properties           orderedKeys `json:"properties"`
		Required             []string    `json:"required"`
		AdditionalProperties *bool       `json:"additionalProperties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return "?"
	}
	if len(s.Properties.keys) == 0 {
		if s.Properties.present || s.AdditionalProperties != nil && !*s.AdditionalProperties {
			return "-" // declared empty: the tool takes no parameters
		}
		return "any"
	}
	required := map[string]int{}
	for i, r := range s.Required {
		required[r] = i + 1
	}
	type param struct {
		name     string
		optional bool
		rank     int
	}
	params := make([]param, 0, len(s.Properties.keys))
	for i, k := range s.Properties.keys {
		optional := required[k] == 0 || nullable(s.Properties.values[i])
		rank := i + len(s.Required) + 1
		if r := required[k]; r > 0 {
			rank = r
		}
		params = append(params, param{k, optional, rank})
	}
	group := func(p param) int {
		switch {
		case p.name == "label" && p.optional:
			return 2
		case p.optional:
			return 1
		}
		return 0
	}
	sort.SliceStable(params, func(i, j int) bool {
		if gi, gj := group(params[i]), group(params[j]); gi != gj {
			return gi < gj
		}
		return params[i].rank < params[j].rank
	})
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.name
		if p.optional {
			parts[i] += "?"
		}
	}
	return clip.Runes(strings.Join(parts, ", "), 60)
}

// nullable reports whether a property schema admits null (`"type":
// ["string","null"]`, or a null branch of anyOf/oneOf).
func nullable(prop json.RawMessage) bool {
	var p struct {
		Type  json.RawMessage   `json:"type"`
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
	}
	if json.Unmarshal(prop, &p) != nil {
		return false
	}
	var one string
	var many []string
	if json.Unmarshal(p.Type, &one) == nil && one == "null" {
		return true
	}
	if json.Unmarshal(p.Type, &many) == nil && slices.Contains(many, "null") {
		return true
	}
	return slices.ContainsFunc(append(p.AnyOf, p.OneOf...), nullable)
}

// orderedKeys decodes a JSON object keeping its keys in written order.
type orderedKeys struct {
	present bool
	keys    []string
	values  []json.RawMessage
}

func (o *orderedKeys) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("not an object")
	}
	o.present = true
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		o.keys = append(o.keys, key)
		o.values = append(o.values, v)
	}
	return nil
}
