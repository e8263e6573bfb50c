package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
	"github.com/sourcegraph/jsonrpc2"
)

// DefaultSettle is how long diagnostics must stay quiet (lsp.settle).
const DefaultSettle = 500 * time.Millisecond

// Names are the LSP tools ($lsp).
var Names = []string{"diagnostics", "symbols", "hover", "definition", "references"}

// WithBuiltins is every built-in tool: tools.Builtins and the LSP tools
// over the pool.
func WithBuiltins(opts builtin.Options, p *Pool) []tools.Tool {
	return append(builtin.Tools(opts), Tools(p)...)
}

// The LSP tools are built-ins, known by name (tools.RegisterBuiltins).
func init() { tools.RegisterBuiltins(Tools(nil)...) }

// IsTool says whether name is one of the LSP tools.
func IsTool(name string) bool { return slices.Contains(Names, name) }

// Tools are the five LSP tools over the pool.
func Tools(p *Pool) []tools.Tool {
	return []tools.Tool{
		lspTool{p, "diagnostics", "The language server's diagnostics for a file (errors, warnings), as path:line:col: severity: message.", schemaPath, diagnosticsRun, pathPreview},
		lspTool{p, "symbols", "Symbols of a file (functions, types… with their lines), or, with query, the workspace's symbols matching it.", schemaSymbols, symbolsRun, symbolsPreview},
		lspTool{p, "hover", "What the language server says about the symbol at a position: its type, signature and documentation.", schemaPosition, hoverRun, positionPreview},
		lspTool{p, "definition", "Where the symbol at a position is defined, as path:line:col with the source line.", schemaPosition, locationsRun("textDocument/definition"), positionPreview},
		lspTool{p, "references", "Every reference to the symbol at a position, as path:line:col with the source line.", schemaPosition, locationsRun("textDocument/references"), positionPreview},
	}
}

const label = `"label":{"type":["string","null"],"description":"A short human-readable label for this call"}`

var (
	schemaPath = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["label","path"],"properties":{` + label +
		`,"path":{"type":"string","description":"The source file (relative to the document's directory, or absolute)"}}}`)
	schemaSymbols = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["label","path","query"],"properties":{` + label +
		`,"path":{"type":"string","description":"A source file: its symbols, or the workspace it belongs to"},"query":{"type":["string","null"],"description":"Search the workspace's symbols for this instead"}}}`)
	schemaPosition = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["label","path","line","column"],"properties":{` + label +
		`,"path":{"type":"string","description":"The source file"},"line":{"type":"integer","minimum":1,"description":"1-based line"},"column":{"type":"integer","minimum":1,"description":"1-based column"}}}`)
)

type lspTool struct {
	pool    *Pool
	name    string
	desc    string
	schema  json.RawMessage
	run     func(ctx context.Context, c call) tools.Result
	preview func(in map[string]any) string
}

// call is one LSP tool call with its server and synced file.
type call struct {
	s       *server
	path    string // absolute
	uri     string
	version int
	input   map[string]any
	shown   func(path string) string // how a path is written in results
	settle  time.Duration
}

func (t lspTool) Definition() tools.Definition {
	return tools.Definition{Name: t.name, Description: t.desc, Source: "builtin", Schema: t.schema,
		Annotations: map[string]any{"readOnlyHint": true}}
}

func (t lspTool) Preview(in map[string]any) string { return t.preview(in) }

// RetrySafe: the LSP tools only ask.
func (lspTool) RetrySafe(map[string]any) bool { return true }

func (t lspTool) Run(ctx context.Context, c tools.Call, env tools.Env) tools.Result {
	raw, _ := c.Input["path"].(string)
	path := raw
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	path = filepath.Clean(path)
	if fi, err := os.Stat(path); err != nil || fi.IsDir() {
		return errResult("%s is not a file", raw)
	}
	s, e, err := t.pool.get(ctx, path)
	if err != nil {
		return errResult("%v", err)
	}
	uri, version, err := s.sync(ctx, path, languageIDs[filepath.Ext(path)])
	if err != nil {
		return errResult("%s: %v", e.Name, err)
	}
	shown := func(p string) string {
		if rel, err := filepath.Rel(env.Dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
		return p
	}
	t.pool.mu.Lock()
	settle := t.pool.Settle
	t.pool.mu.Unlock()
	res := t.run(ctx, call{s: s, path: path, uri: uri, version: version, input: c.Input, shown: shown, settle: settle})
	if ctx.Err() != nil {
		// It did not answer in time: a server that hangs is replaced.
		_ = s.conn.Close()
		return res
	}
	if res.IsError && strings.Contains(res.Text, jsonrpc2.ErrClosed.Error()) && s.died() {
		// It died while answering: say so; the next call starts it again.
		return errResult("the language server %s stopped (%s) while answering %s; it starts again on the next call", e.Name, s.exit, t.name)
	}
	return res
}

func errResult(format string, args ...any) tools.Result {
	return tools.Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

var severities = map[int]string{1: "error", 2: "warning", 3: "info", 4: "hint"}

func diagnosticsRun(ctx context.Context, c call) tools.Result {
	list := c.s.awaitDiagnostics(ctx, c.uri, c.version, c.settle)
	if len(list) == 0 {
		return tools.Result{Text: "No diagnostics."}
	}
	var b strings.Builder
	for i, d := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s", c.shown(c.path), d.Range.Start.Line+1, d.Range.Start.Character+1, cmp.Or(severities[d.Severity], "error"), strings.TrimSpace(d.Message))
	}
	return tools.Result{Text: b.String()}
}

var symbolKinds = map[int]string{1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method", 7: "property", 8: "field",
	9: "constructor", 10: "enum", 11: "interface", 12: "function", 13: "variable", 14: "constant", 22: "enum member", 23: "struct", 26: "type parameter"}

type docSymbol struct {
	Name     string      `json:"name"`
	Kind     int         `json:"kind"`
	Range    lspRange    `json:"range"`
	Children []docSymbol `json:"children"`
	Location *location   `json:"location"` // SymbolInformation
}

type location struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

func symbolsRun(ctx context.Context, c call) tools.Result {
	var syms []docSymbol
	if q, _ := c.input["query"].(string); q != "" {
		if err := c.s.conn.Call(ctx, "workspace/symbol", map[string]any{"query": q}, &syms); err != nil {
			return errResult("workspace/symbol: %v", err)
		}
	} else if err := c.s.conn.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": c.uri}}, &syms); err != nil {
		return errResult("documentSymbol: %v", err)
	}
	var b strings.Builder
	var walk func(list []docSymbol, depth int)
	walk = func(list []docSymbol, depth int) {
		for _, s := range list {
			path, r := c.shown(c.path), s.Range
			if s.Location != nil {
				path, r = c.shown(uriPath(s.Location.URI)), s.Location.Range
			}
			fmt.Fprintf(&b, "%s%s %s  %s:%d:%d\n", strings.Repeat("  ", depth), cmp.Or(symbolKinds[s.Kind], "symbol"), s.Name, path, r.Start.Line+1, r.Start.Character+1)
			walk(s.Children, depth+1)
		}
	}
	walk(syms, 0)
	if b.Len() == 0 {
		return tools.Result{Text: "No symbols."}
	}
	return tools.Result{Text: strings.TrimRight(b.String(), "\n")}
}

func positionParams(c call) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": c.uri},
		"position": map[string]any{"line": max(intOf(c.input["line"])-1, 0), "character": max(intOf(c.input["column"])-1, 0)}}
}

func hoverRun(ctx context.Context, c call) tools.Result {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := c.s.conn.Call(ctx, "textDocument/hover", positionParams(c), &h); err != nil {
		return errResult("hover: %v", err)
	}
	text := hoverText(h.Contents)
	if text == "" {
		return tools.Result{Text: "Nothing known at this position."}
	}
	return tools.Result{Text: text}
}

// hoverText reads MarkupContent, a MarkedString or a list of them.
func hoverText(raw json.RawMessage) string {
	var markup struct {
		Value string `json:"value"`
	}
	var s string
	var list []json.RawMessage
	switch {
	case json.Unmarshal(raw, &s) == nil:
		return strings.TrimSpace(s)
	case json.Unmarshal(raw, &list) == nil:
		var parts []string
		for _, r := range list {
			if t := hoverText(r); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	case json.Unmarshal(raw, &markup) == nil:
		return strings.TrimSpace(markup.Value)
	}
	return ""
}

func locationsRun(method string) func(context.Context, call) tools.Result {
	return func(ctx context.Context, c call) tools.Result {
		params := positionParams(c)
		if method == "textDocument/references" {
			params["context"] = map[string]any{"includeDeclaration": true}
		}
		var raw json.RawMessage
		if err := c.s.conn.Call(ctx, method, params, &raw); err != nil {
			return errResult("%s: %v", method, err)
		}
		var locs []location
		if json.Unmarshal(raw, &locs) != nil {
			var one location
			if json.Unmarshal(raw, &one) == nil && one.URI != "" {
				locs = []location{one}
			}
		}
		if len(locs) == 0 {
			return tools.Result{Text: "No locations."}
		}
		var b strings.Builder
		for i, l := range locs {
			if i > 0 {
				b.WriteByte('\n')
			}
			p := uriPath(l.URI)
			fmt.Fprintf(&b, "%s:%d:%d: %s", c.shown(p), l.Range.Start.Line+1, l.Range.Start.Character+1, sourceLine(p, l.Range.Start.Line))
		}
		return tools.Result{Text: b.String()}
	}
}

// sourceLine is line (0-based) of the file, trimmed.
func sourceLine(path string, line int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if line < 0 || line >= len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[line])
}

// intOf reads a JSON number as decoded (float64 or json.Number).
func intOf(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}
