package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
)

// fakeTool is a registered tool for tests; it never runs.
type fakeTool struct{ def tools.Definition }

func (t fakeTool) Definition() tools.Definition { return t.def }
func (t fakeTool) Run(context.Context, tools.Call, tools.Env) tools.Result {
	return tools.Result{Text: "not run in tests", IsError: true}
}

// fakeRegistry knows the built-in names, suggests by a fixed table and
// validates with a per-tool function.
type fakeRegistry struct {
	names    []string
	suggest  map[string]string
	validate func(name string, input map[string]any) []tools.ValidationError
}

func newFakeRegistry() *fakeRegistry {
	return &fakeRegistry{
		names:   []string{"bash", "calculator", "edit", "find", "grep", "ls", "read", "write"},
		suggest: map[string]string{"reed": "read", "bsh": "bash"},
		validate: func(name string, input map[string]any) []tools.ValidationError {
			if name != "edit" {
				return nil
			}
			var errs []tools.ValidationError
			if _, ok := input["newText"]; !ok {
				errs = append(errs, tools.ValidationError{Path: []string{"newText"}, Message: "newText: missing required property"})
			}
			if v, ok := input["oldText"]; ok {
				if _, isString := v.(string); !isString {
					errs = append(errs, tools.ValidationError{Path: []string{"oldText"}, Message: "oldText: expected string, got number"})
				}
			}
			return errs
		},
	}
}

func (r *fakeRegistry) Lookup(name string) (tools.Tool, bool) {
	for _, n := range r.names {
		if n == name {
			return fakeTool{tools.Definition{Name: n, Description: "The " + n + " tool."}}, true
		}
	}
	return nil, false
}

func (r *fakeRegistry) ValidateText(name, text string, decode func(string) map[string]any) []tools.ValidationError {
	return r.validate(name, decode(text))
}

func (r *fakeRegistry) Suggest(name string) string { return r.suggest[name] }

// applyEdits applies non-overlapping edits to text, as an editor would.
func applyEdits(t testing.TB, text string, edits []chatdoc.TextEdit) string {
	t.Helper()
	sorted := append([]chatdoc.TextEdit{}, edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Span.Start > sorted[j].Span.Start })
	for i, e := range sorted {
		if e.Span.Start < 0 || e.Span.End > len(text) || e.Span.Start > e.Span.End {
			t.Fatalf("edit %d out of range: %+v (len %d)", i, e.Span, len(text))
		}
		if i > 0 && e.Span.End > sorted[i-1].Span.Start {
			t.Fatalf("edits overlap: %+v and %+v", e.Span, sorted[i-1].Span)
		}
		text = text[:e.Span.Start] + e.NewText + text[e.Span.End:]
	}
	return text
}

// decodeTokens renders semantic tokens as "line:char len type[+mods] text" lines.
func decodeTokens(doc *chatdoc.Document, enc chatdoc.Encoding, data []uint32) []string {
	legend := SemanticTokensLegend()
	var out []string
	line, char := 0, 0
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			line += int(data[i])
			char = int(data[i+1])
		} else {
			char += int(data[i+1])
		}
		length := int(data[i+2])
		name := fmt.Sprint(data[i+3])
		if int(data[i+3]) < len(legend.TokenTypes) {
			name = string(legend.TokenTypes[data[i+3]])
		}
		for bit, mod := range legend.TokenModifiers {
			if data[i+4]&(1<<bit) != 0 {
				name += "+" + string(mod)
			}
		}
		span := doc.Span(chatdoc.Range{Start: chatdoc.Position{Line: line, Character: char}, End: chatdoc.Position{Line: line, Character: char + length}}, enc)
		out = append(out, fmt.Sprintf("%d:%d %d %s %q", line, char, length, name, doc.Text()[span.Start:span.End]))
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "!" + err.Error()
	}
	return string(b)
}

// spanText is the text a span covers, for readable assertions.
func spanText(doc *chatdoc.Document, s chatdoc.Span) string {
	s = clampSpan(doc.Text(), s)
	return doc.Text()[s.Start:s.End]
}

// lines joins a document from lines with "\n" endings.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// corpusDir holds the corpus documents, stored once for every package's tests.
var corpusDir = filepath.Join("..", "chatdoc", "testdata", "corpus")

// corpus reads a shared corpus document.
func corpus(t testing.TB, name string) *chatdoc.Document {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return chatdoc.Parse(string(b))
}

// tokenText is the quoted text at the end of a decoded token line
// ("L:C LEN TYPE "TEXT""), unquoted.
func tokenText(t testing.TB, line string) string {
	t.Helper()
	parts := strings.SplitN(line, " ", 4)
	if len(parts) < 4 {
		t.Fatalf("bad token line %q", line)
	}
	return unquote(t, parts[3])
}

func unquote(t testing.TB, s string) string {
	t.Helper()
	u, err := strconv.Unquote(s)
	if err != nil {
		t.Fatalf("unquote %s: %v", s, err)
	}
	return u
}

// toolDiagnostics are the tool diagnostics of doc computed afresh, through
// a cache that remembers nothing yet.
func toolDiagnostics(doc *chatdoc.Document, reg ToolInfo) []chatdoc.Diagnostic {
	return new(ToolDiagnosticsCache).Diagnostics(doc, reg, tools.Stamp{})
}
