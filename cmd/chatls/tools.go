package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chatls/chatls/tools"
)

// toolRegistry builds the registry `chatls tools` lists; the server setup
// extends it with plugins and MCP servers from the configuration.
var toolRegistry = func() *tools.Registry {
	return tools.NewRegistry(tools.Builtins(tools.BuiltinOptions{}))
}

// toolJSON is one tool in `chatls tools --json` (and chatls.listTools).
type toolJSON struct {
	Name            string          `json:"name"`
	Source          string          `json:"source"`
	Description     string          `json:"description"`
	Schema          json.RawMessage `json:"schema,omitempty"`
	Annotations     map[string]any  `json:"annotations,omitempty"`
	PreviewTemplate string          `json:"previewTemplate,omitempty"`
}

// runTools implements `chatls tools [--json] [--wait DURATION]`.
func runTools(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the tools with their schemas as JSON")
	wait := fs.Duration("wait", 30*time.Second, "how long to wait for plugin and MCP tool sources")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: chatls tools [--json] [--wait DURATION]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}

	reg := toolRegistry()
	ctx, cancel := context.WithTimeout(context.Background(), *wait)
	defer cancel()
	if err := reg.WaitReady(ctx); err != nil {
		fmt.Fprintf(stderr, "warning: some tool sources did not load within %s\n", *wait)
	}
	errs := reg.SourceErrors()
	names := make([]string, 0, len(errs))
	for n := range errs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(stderr, "warning: %s: %v\n", n, errs[n])
	}

	defs := reg.List()
	if *asJSON {
		out := make([]toolJSON, 0, len(defs))
		for _, d := range defs {
			out = append(out, toolJSON{
				Name: d.Name, Source: d.Source, Description: d.Description,
				Schema: d.Schema, Annotations: d.Annotations, PreviewTemplate: d.PreviewTemplate,
			})
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
	fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION")
	for _, d := range defs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Name, d.Source, firstSentence(d.Description))
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return 0
}

// firstSentence keeps the table one line per tool.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return s
}
