package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// ValidateText answers as Validate does, for the same text again (a hit),
// across a generation rollover, and after the tool's schema changed.
func TestValidateTextAgreesWithValidate(t *testing.T) {
	reg := NewRegistry(builtins(t))
	inputs := []struct{ tool, text string }{
		{"edit", `{"path":"main.go","oldText":42}`},
		{"bash", `{"command":"wc -l main.go"}`},
		{"read", `{"path":"a","ofset":3}`},
		{"time", `{"format":"week"}`},
		{"nosuchtool", `{"x":1}`},
	}
	check := func(round string) {
		t.Helper()
		for _, in := range inputs {
			var input map[string]any
			if err := json.Unmarshal([]byte(in.text), &input); err != nil {
				t.Fatal(err)
			}
			want := reg.Validate(in.tool, input)
			decoded := false
			got := reg.ValidateText(in.tool, in.text, func(string) map[string]any { decoded = true; return input })
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: %s %s (-Validate +ValidateText):\n%s", round, in.tool, in.text, diff)
			}
			if decoded && round == "remembered" {
				t.Errorf("%s %s: the input was decoded although the verdict was remembered", in.tool, in.text)
			}
		}
	}
	check("first")
	check("remembered")

	// Fill more than two generations with other inputs (invalid ones: a
	// valid input of a flat schema is never remembered): the ones above
	// are validated again, and still agree.
	for i := range 2*memoGeneration + 10 {
		text := fmt.Sprintf(`{"command":"echo","x":%d}`, i)
		if errs := reg.ValidateText("bash", text, func(string) map[string]any { return map[string]any{"command": "echo", "x": float64(i)} }); len(errs) == 0 {
			t.Fatalf("%s is valid", text)
		}
	}
	check("after rollover")

	// The same text under a changed schema is judged by the new schema.
	text := `{"command":"ls"}`
	input := func(string) map[string]any { return map[string]any{"command": "ls"} }
	if errs := reg.ValidateText("bash", text, input); len(errs) != 0 {
		t.Fatalf("valid under the built-in schema: %v", errs)
	}
	strict := fakeTool{def: Definition{Name: "bash", Schema: json.RawMessage(`{"type":"object","required":["cwd"],"properties":{"command":{"type":"string"},"cwd":{"type":"string"}}}`)}}
	reg.SetBuiltins([]Tool{strict})
	if errs := reg.ValidateText("bash", text, input); len(errs) == 0 {
		t.Error("the changed schema requires cwd, yet the remembered verdict (valid) came back")
	}
}

// BenchmarkValidateText is the cost of a verdict after the first: a valid
// input, judged by the quick check from its text, and an invalid one,
// whose verdict is remembered.
func BenchmarkValidateText(b *testing.B) {
	reg := NewRegistry(builtins(b))
	for _, c := range []struct{ name, text string }{
		{"quick", `{"command":"go test ./... 2>&1 | tail -n 40","label":"running the tests","timeout":null}`},
		{"remembered", `{"command":"go test ./... 2>&1 | tail -n 40","label":"running the tests","timeout":-1}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			var input map[string]any
			if err := json.Unmarshal([]byte(c.text), &input); err != nil {
				b.Fatal(err)
			}
			decode := func(string) map[string]any { return input }
			want := len(reg.ValidateText("bash", c.text, decode))
			for b.Loop() {
				if len(reg.ValidateText("bash", c.text, decode)) != want {
					b.Fatal("the verdict changed")
				}
			}
		})
	}
}

// A remembered verdict and the compiled schema keep no substring of the
// document they came from: kept, one would keep that whole text alive (and
// point into a file `chatls check` has unmapped since).
func TestRememberedVerdictsOwnTheirStrings(t *testing.T) {
	reg := NewRegistry(builtins(t))
	doc := "@Assistant:\n**Tool Use:** `read` (`toolu_1`)\n```json\n" + `{"path":"a","ofset":3}` + "\n```\n"
	name := doc[strings.Index(doc, "read") : strings.Index(doc, "read")+len("read")]
	text := doc[strings.Index(doc, "{") : strings.LastIndex(doc, "}")+1]
	key := text[strings.Index(text, "ofset") : strings.Index(text, "ofset")+len("ofset")]
	decode := func(string) map[string]any { return map[string]any{"path": "a", key: float64(3)} }
	errs := reg.ValidateText(name, text, decode)
	if len(errs) == 0 {
		t.Fatal("the misspelt key was accepted")
	}
	inDoc := func(s string) bool {
		if len(s) == 0 {
			return false
		}
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(doc)))
		return p >= lo && p < lo+uintptr(len(doc))
	}
	mentionsKey := false
	for _, e := range errs {
		for _, k := range e.Path {
			mentionsKey = mentionsKey || k == "ofset"
			if inDoc(k) {
				t.Errorf("path key %q is a substring of the document", k)
			}
		}
		if inDoc(e.Message) {
			t.Errorf("message %q is a substring of the document", e.Message)
		}
	}
	if !mentionsKey {
		t.Fatalf("no error names the key: %+v", errs)
	}
	for n, cs := range reg.schemas.entries {
		if inDoc(n) || inDoc(cs.name) {
			t.Errorf("the compiled schema of %q keeps the document's name", n)
		}
	}
}
