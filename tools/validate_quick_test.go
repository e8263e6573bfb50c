package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// quickSchemas are the schemas the quick check is held to: every built-in
// tool's, and hand-written ones at the edges of the shape it knows.
func quickSchemas(t testing.TB) map[string]*compiledSchema {
	t.Helper()
	out := map[string]*compiledSchema{}
	for _, tool := range builtins(t) {
		def := tool.Definition()
		out[def.Name] = compileSchema(def.Name, def.Schema)
	}
	for name, schema := range map[string]string{
		"open":         `{"type":"object","properties":{"a":{"type":"string"}}}`,
		"untyped":      `{"type":"object","properties":{"a":{},"b":{"type":"null"}},"required":["a","b"],"additionalProperties":false}`,
		"bounds":       `{"type":"object","properties":{"n":{"type":"number","maximum":2.5,"exclusiveMinimum":-1},"i":{"type":["integer","null"],"exclusiveMaximum":10,"minimum":0.1}},"required":["n"]}`,
		"lengths":      `{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":3}},"required":["s"],"additionalProperties":false}`,
		"opaque":       `{"type":"object","properties":{"e":{"enum":["x","y"]},"p":{"type":"string","pattern":"^a"},"list":{"type":"array","items":{"type":"integer"}},"f":{"type":"number","minimum":0.1000000000000000000001}},"additionalProperties":false}`,
		"notQuick":     `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}}`,
		"draft4":       `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`,
		"requiredOnly": `{"type":"object","required":["x"]}`,
		"objects":      `{"type":"object","properties":{"o":{"type":"object"},"a":{"type":"array"},"b":{"type":"boolean"}},"required":["o","a","b"],"additionalProperties":false}`,
	} {
		out[name] = compileSchema(name, json.RawMessage(schema))
		if out[name].compileErr != nil {
			t.Fatalf("%s: %v", name, out[name].compileErr)
		}
	}
	return out
}

// quickSeeds are inputs at the edges: wrong kinds, integers written as
// 1.0 or 1e2, bounds met exactly, lengths in runes, escapes, duplicates,
// unknown and missing keys, nesting, broken JSON.
var quickSeeds = []string{
	`{"command":"ls"}`, `{"command":"ls","timeout":null,"label":null}`, `{"command":"ls","timeout":0}`,
	`{"command":"ls","timeout":1e-300}`, `{"command":"ls","timeout":-0}`, `{"command":"ls","timeout":"5"}`,
	`{"command":"ls","command":"rm"}`, `{"command":"ls","extra":1}`, `{"comm\u0061nd":"ls"}`, `{}`,
	`{"path":"a","offset":1,"limit":1.0}`, `{"path":"a","offset":0}`, `{"path":"a","offset":1e2}`,
	`{"path":"a","offset":12345678901234567890123}`, `{"path":"a","offset":1e999}`,
	`{"expression":"` + strings.Repeat("é", 1000) + `"}`, `{"expression":"` + strings.Repeat("é", 10000) + `"}`,
	`{"expression":"` + strings.Repeat(`\n`, 5000) + `"}`,
	`{"s":"ab"}`, `{"s":"a"}`, `{"s":"\n"}`, `{"s":"\ud83d\ude00"}`, `{"s":"abcd"}`, `{"s":"日本語"}`, `{"s":"日本語x"}`, `{"s":"a\u00e9"}`, `{"s":"\xff\xfe"}`,
	`{"n":2.5}`, `{"n":2.5000001}`, `{"n":-1}`, `{"n":-0.999,"i":9}`, `{"n":0,"i":10}`, `{"n":0,"i":0}`, `{"n":0,"i":null}`,
	`{"a":1,"b":null}`, `{"a":null}`, `{"b":null}`, `{"a":[1,{"x":[]}],"b":null}`,
	`{"o":{},"a":[],"b":false}`, `{"o":[],"a":{},"b":0}`, `{"o":{"k":{"k":{"k":1}}},"a":[[[]]],"b":true}`,
	`{"e":"x"}`, `{"e":"z"}`, `{"p":"b"}`, `{"list":[1.5]}`, `{"f":0.1}`, `{"x":1}`, `{"n":0}`,
	` {"command" : "ls" } `, `{"command":"ls",}`, `{"command":"ls"} x`, `{"command":"l\s"}`, `[1]`, ``, `{"command":"ls"`,
	`{"command":"ls","timeout":01}`, `{"command":"ls","timeout":-}`, `{"command":"ls","timeout":1.}`,
	`{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"b":null}`,
}

// FuzzQuickSchemaNeverAcceptsWhatValidateRejects holds the quick check to
// its one promise: whatever it calls valid, the full validator accepts
// after decoding.
func FuzzQuickSchemaNeverAcceptsWhatValidateRejects(f *testing.F) {
	schemas := quickSchemas(f)
	names := make([]string, 0, len(schemas))
	for name := range schemas {
		names = append(names, name)
	}
	for _, seed := range quickSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, name := range names {
			checkQuickAgrees(t, name, schemas[name], text)
		}
	})
}

func checkQuickAgrees(t *testing.T, name string, cs *compiledSchema, text string) {
	t.Helper()
	if cs.quick == nil || !cs.quick.valid(text) {
		return
	}
	var input map[string]any
	if err := json.Unmarshal([]byte(text), &input); err != nil {
		t.Fatalf("%s: the quick check accepts %q, which does not decode: %v", name, text, err)
	}
	if errs := cs.validate(input); len(errs) > 0 {
		t.Fatalf("%s: the quick check accepts %q, the validator finds %v", name, text, errs)
	}
}

// The quick check takes the inputs models really send: every built-in
// schema has one, and a valid input of each is accepted without decoding.
// Properties with keywords it leaves to the full validator (enum, items)
// are left out where they may be; git_commit's files may not.
func TestQuickSchemaAcceptsValidInputsOfEveryBuiltin(t *testing.T) {
	schemas := quickSchemas(t)
	for _, tool := range builtins(t) {
		name := tool.Definition().Name
		cs := schemas[name]
		if cs.quick == nil {
			t.Errorf("%s: no quick check for a built-in schema", name)
			continue
		}
		text, complete := sampleInput(t, cs)
		if errs := cs.validate(decodeForTest(t, text)); complete && len(errs) > 0 {
			t.Errorf("%s: the sample %s is not valid: %v", name, text, errs)
		}
		if got := cs.quick.valid(text); got != complete {
			t.Errorf("%s: the quick check says %v for %s, want %v", name, got, text, complete)
		}
	}
	if !schemas["bash"].quick.valid(`{"command":"printf '%s\\n' \"a\tb\" \u00e9","timeout":120,"label":null}`) {
		t.Error("bash: escapes in a string without length bounds make the quick check unsure")
	}
}

// sampleInput is a valid input of a built-in schema: each property given a
// value of its first type within its bounds. complete is false when a
// required property has keywords beyond the quick check's.
func sampleInput(t *testing.T, cs *compiledSchema) (text string, complete bool) {
	t.Helper()
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal([]byte(cs.text), &schema); err != nil {
		t.Fatal(err)
	}
	complete = true
	var parts []string
	for name, p := range schema.Properties {
		typ, _ := p["type"].(string)
		nullable := false
		if list, ok := p["type"].([]any); ok {
			typ, _ = list[0].(string)
			nullable = list[len(list)-1] == "null"
		}
		if p["enum"] != nil || p["items"] != nil {
			complete = complete && nullable
			continue
		}
		value := map[string]string{"string": `"a b"`, "integer": "3", "number": "2.5", "boolean": "true"}[typ]
		if value == "" {
			t.Fatalf("no sample for type %v", p["type"])
		}
		parts = append(parts, fmt.Sprintf("%q:%s", name, value))
	}
	return "{" + strings.Join(parts, ",") + "}", complete
}

func decodeForTest(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Schemas outside the shape get no quick check, and the opaque keywords
// send an input that uses them to the full validator.
func TestQuickSchemaStaysOutOfWhatItDoesNotKnow(t *testing.T) {
	schemas := quickSchemas(t)
	for _, name := range []string{"notQuick", "draft4", "requiredOnly"} {
		if schemas[name].quick != nil {
			t.Errorf("%s: a quick check was built for a schema it cannot judge", name)
		}
	}
	for _, text := range []string{`{"e":"x"}`, `{"p":"a"}`, `{"list":[1]}`, `{"f":1}`} {
		if schemas["opaque"].quick.valid(text) {
			t.Errorf("opaque: the quick check judged %s", text)
		}
	}
	if !schemas["opaque"].quick.valid(`{}`) {
		t.Error("opaque: an input without the opaque properties is not judged")
	}
}

// schemaSeeds are flat-looking schemas, some broken in ways only the
// metaschema sees.
var schemaSeeds = []string{
	`{"type":"object","properties":{"a":{"type":"string","description":"x"}},"required":["a"],"additionalProperties":false}`,
	`{"type":"object","properties":{"a":{"type":"string"}},"required":["a","a"]}`,
	`{"type":"object","properties":{"a":{"type":["string","string"]}}}`,
	`{"type":"object","properties":{"a":{"type":[]}}}`,
	`{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}`,
	`{"type":"object","properties":{"a":{"type":"string","maxLength":1.5}}}`,
	`{"type":"object","properties":{"a":{"type":"string","maxLength":"3"}}}`,
	`{"type":"object","properties":{"a":{"type":"number","minimum":"0"}}}`,
	`{"type":"object","properties":{"a":{"type":"number","minimum":1e400}}}`,
	`{"type":"object","properties":{"a":{"type":"string","description":5}}}`,
	`{"type":"object","title":[],"properties":{"a":{"type":"string"}}}`,
	`{"type":"object","description":"d","examples":[1],"properties":{"a":{"type":"string","title":"t"}}}`,
	`{"type":"object","properties":{"a":{"type":"string","deprecated":"yes"}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":3,"exclusiveMaximum":2.5}}}`,
	`{"type":"object","properties":{"a":{"type":"string","enum":"x"}}}`,
	`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`,
}

// FuzzQuickSoundSchemasCompile holds the quick check's second promise: a
// schema it calls sound compiles, so postponing the compilation hides no
// broken schema.
func FuzzQuickSoundSchemasCompile(f *testing.F) {
	for _, seed := range schemaSeeds {
		f.Add(seed)
	}
	for _, tool := range builtins(f) {
		f.Add(string(tool.Definition().Schema))
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return
		}
		if _, sound := compileQuick(doc); !sound {
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem:///s.json", doc); err != nil {
			t.Fatalf("sound, yet the schema is refused: %v\n%s", err, text)
		}
		if _, err := c.Compile("mem:///s.json"); err != nil {
			t.Fatalf("sound, yet the schema does not compile: %v\n%s", err, text)
		}
	})
}

// Every built-in schema is sound: no built-in compiles the general
// validator until an input needs it. A broken schema that looks flat is
// still reported for every input, even one the quick check would accept.
func TestQuickSoundnessPostponesOnlyWhatCompiles(t *testing.T) {
	for _, tool := range builtins(t) {
		def := tool.Definition()
		cs := compileSchema(def.Name, def.Schema)
		_, sound := compileQuick(cs.doc)
		if !sound && cs.quick != nil && !strings.Contains(string(def.Schema), `"enum"`) && !strings.Contains(string(def.Schema), `"items"`) {
			t.Errorf("%s: a flat built-in schema is not sound", def.Name)
		}
	}
	reg := NewRegistry(nil)
	reg.Replace("plugin:x", []Tool{fakeTool{def: Definition{Name: "x", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}`)}}})
	errs := reg.ValidateText("x", `{"a":"ok"}`, func(string) map[string]any { return map[string]any{"a": "ok"} })
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "the schema of tool x is invalid") {
		t.Errorf("a broken schema: %v", errs)
	}
	bash := compileSchema("bash", json.RawMessage(schemaSeeds[0]))
	if bash.full.schema != nil {
		t.Error("a sound schema was compiled before any input needed it")
	}
	if errs := bash.validate(map[string]any{"a": 1}); len(errs) != 1 {
		t.Errorf("the postponed validator: %v", errs)
	}
}
