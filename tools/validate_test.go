package tools

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/chatls/chatls/internal/tooltest"
	"github.com/google/go-cmp/cmp"
)

func TestValidateCorpusInputs(t *testing.T) {
	reg := NewRegistry(builtins(t))
	tests := []struct {
		tool, input string
		want        []ValidationError
	}{
		// 08-malformed: `oldText` not a string, `newText` missing.
		{"edit", `{"path":"main.go","oldText":42}`, []ValidationError{
			{Path: []string{"newText"}, Message: "newText: missing required property"},
			{Path: []string{"oldText"}, Message: "oldText: expected string, got number"},
		}},
		// Nullable properties may be omitted (04-legacy-pending, 06, 08).
		{"bash", `{"command":"wc -l main.go"}`, nil},
		{"calculator", `{"expression":"17 * 23"}`, nil},
		{"read", `{"path":"a.txt"}`, nil},
		{"read", `{"path":"README.md","offset":null,"limit":null,"label":null}`, nil},
		{"ls", `{"label":"listing root","path":".","maxDepth":1,"limit":null}`, nil},
		{"write", `{"path":"log.txt","content":"started\n","label":"logging"}`, nil},
		{"grep", `{"pattern":"TODO","path":"src","glob":null,"limit":null,"label":"finding todos"}`, nil},
		{"find", `{"pattern":"Makefile","path":".","limit":10,"label":"looking for Makefile"}`, nil},
		{"time", `{}`, nil},
		{"time", `{"format":"epoch"}`, nil},
		{"time", `{"format":"week"}`, []ValidationError{
			{Path: []string{"format"}, Message: `format: must be one of "iso", "epoch", "epoch_ms", "rfc2822", "date", "time", null`},
		}},
		{"read", `{"path":"a","ofset":3}`, []ValidationError{
			{Path: []string{"ofset"}, Message: "ofset: unknown property (did you mean offset?)"},
		}},
		{"read", `{"path":"a","offset":0}`, []ValidationError{
			{Path: []string{"offset"}, Message: "offset: must be at least 1, got 0"},
		}},
		{"read", `{"path":"a","limit":2.5}`, []ValidationError{
			{Path: []string{"limit"}, Message: "limit: expected integer or null, got number"},
		}},
		{"bash", `{"command":null}`, []ValidationError{
			{Path: []string{"command"}, Message: "command: expected string, got null"},
		}},
		{"bash", `{"command":"x","label":7}`, []ValidationError{
			{Path: []string{"label"}, Message: "label: expected string or null, got number"},
		}},
		{"write", `{}`, []ValidationError{
			{Path: []string{"content"}, Message: "content: missing required property"},
			{Path: []string{"path"}, Message: "path: missing required property"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.input, func(t *testing.T) {
			got := reg.Validate(tt.tool, tooltest.Decode(t, tt.input))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate(%s, %s) (-want +got):\n%s", tt.tool, tt.input, diff)
			}
		})
	}
}

func TestBuiltinSchemasAreStrict(t *testing.T) {
	for _, tool := range builtins(t) {
		def := tool.Definition()
		var s struct {
			Type                 string                    `json:"type"`
			Properties           map[string]map[string]any `json:"properties"`
			Required             []string                  `json:"required"`
			AdditionalProperties *bool                     `json:"additionalProperties"`
		}
		if err := json.Unmarshal(def.Schema, &s); err != nil {
			t.Fatalf("%s: %v", def.Name, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: want an object schema with additionalProperties false", def.Name)
		}
		if _, ok := s.Properties["label"]; !ok {
			t.Errorf("%s: no label property", def.Name)
		}
		for p := range s.Properties {
			if !slices.Contains(s.Required, p) {
				t.Errorf("%s: property %s is not required", def.Name, p)
			}
		}
		if def.Source != "builtin" || def.Description == "" {
			t.Errorf("%s: source %q, description %q", def.Name, def.Source, def.Description)
		}
	}
}

func TestValidateCachesAndRecompilesOnChange(t *testing.T) {
	reg := NewRegistry(nil)
	reg.Replace("plugin:x", []Tool{fakeTool{def: Definition{Name: "x", Schema: json.RawMessage(`{"type":"object","required":["a"]}`)}}})
	if errs := reg.Validate("x", map[string]any{}); len(errs) != 1 {
		t.Fatalf("want 1 error, got %v", errs)
	}
	first := reg.schemas.entries["x"]
	reg.Validate("x", map[string]any{"a": 1})
	if reg.schemas.entries["x"] != first {
		t.Error("schema recompiled although unchanged")
	}
	reg.Replace("plugin:x", []Tool{fakeTool{def: Definition{Name: "x", Schema: json.RawMessage(`{"type":"object"}`)}}})
	if errs := reg.Validate("x", map[string]any{}); len(errs) != 0 {
		t.Errorf("replaced schema not used: %v", errs)
	}
}

func TestValidateBrokenSchemaBlocksTheCall(t *testing.T) {
	reg := NewRegistry(nil)
	reg.Replace("mcp:bad", []Tool{fakeTool{def: Definition{Name: "bad:x", Schema: json.RawMessage(`{"type":12}`)}}})
	errs := reg.Validate("bad:x", map[string]any{})
	if len(errs) != 1 || errs[0].Path == nil {
		t.Fatalf("want one root error, got %#v", errs)
	}
}

func BenchmarkValidate(b *testing.B) {
	reg := NewRegistry(builtins(b))
	in := map[string]any{"path": "main.go", "oldText": "a", "newText": "b", "label": "x"}
	for b.Loop() {
		if errs := reg.Validate("edit", in); errs != nil {
			b.Fatal(errs)
		}
	}
}

// Lookups and validations read the registry without its lock, from every
// core, while a source replaces its tools: each answer is one schema's or
// the other's, never a torn state (run with -race).
func TestValidateWhileASourceReplacesItsTools(t *testing.T) {
	reg := NewRegistry(builtins(t))
	strict := []Tool{fakeTool{def: Definition{Name: "x", Schema: json.RawMessage(`{"type":"object","required":["a"]}`)}}}
	loose := []Tool{fakeTool{def: Definition{Name: "x", Schema: json.RawMessage(`{"type":"object"}`)}}}
	reg.Replace("plugin:x", strict)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, ok := reg.Lookup("read"); !ok {
					t.Error("the built-in read vanished during a replace")
					return
				}
				if errs := reg.ValidateText("x", `{}`, emptyInput); len(errs) > 1 {
					t.Errorf("%d errors for {}: %v", len(errs), errs)
					return
				}
			}
		})
	}
	for i := range 200 {
		reg.Replace("plugin:x", [][]Tool{strict, loose}[i%2])
	}
	close(done)
	wg.Wait()
	reg.Replace("plugin:x", strict)
	if errs := reg.ValidateText("x", `{}`, emptyInput); len(errs) != 1 {
		t.Fatalf("after the last replace (strict): %v", errs)
	}
}

func emptyInput(string) map[string]any { return map[string]any{} }
