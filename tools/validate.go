package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/chatls/chatls/internal/didyoumean"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ValidationError is one schema violation of a call's input.
type ValidationError struct {
	// Path holds the JSON pointer tokens of the offending key: ["oldText"], or
	// empty for the input object itself. Diagnostics use it to find the range.
	Path []string
	// Message names the field first: `newText: missing required property`.
	Message string
}

func (e ValidationError) Error() string { return e.Message }

// Validate checks input against the tool's schema (compiled once per schema
// and cached). Nullable properties may be omitted: they count as null, as
// Flemma treats them (the corpus has `{"command":"wc -l main.go"}`). An
// unknown tool or a tool without a schema yields no errors; Runner reports
// unknown tools itself.
func (r *Registry) Validate(name string, input map[string]any) []ValidationError {
	cs, errs, ok := r.compiled(name)
	if !ok {
		return errs
	}
	return cs.validate(input)
}

// compiled is the tool's compiled schema; without one (unknown tool, no
// schema, a broken schema) ok is false and errs is Validate's answer.
func (r *Registry) compiled(name string) (cs *compiledSchema, errs []ValidationError, ok bool) {
	e, known := r.names()[name]
	if !known {
		return nil, nil, false
	}
	s := &e.schema
	s.once.Do(func() { s.cs, s.errs, s.ok = r.compile(name, e.tool) })
	return s.cs, s.errs, s.ok
}

// compile is tool t's compiled schema, from the cache while its text is
// unchanged.
func (r *Registry) compile(name string, t Tool) (cs *compiledSchema, errs []ValidationError, ok bool) {
	def := t.Definition()
	if len(bytes.TrimSpace(def.Schema)) == 0 {
		return nil, nil, false
	}
	cs, err := r.schemas.get(name, def.Schema)
	if err != nil {
		return nil, schemaInvalid(name, err), false
	}
	return cs, nil, true
}

// schemaInvalid is the one violation of every input of a tool whose schema
// is broken.
func schemaInvalid(name string, err error) []ValidationError {
	return []ValidationError{{Path: []string{}, Message: fmt.Sprintf("the schema of tool %s is invalid: %v", name, err)}}
}

// InvalidInput is the error result for an input the tool's schema
// rejects, "" when it is valid or the tool is unknown.
func (r *Registry) InvalidInput(name string, input map[string]any) string {
	if errs := r.Validate(name, input); len(errs) > 0 {
		return formatValidation(name, errs)
	}
	return ""
}

// schemaCache maps a tool name to its compiled schema; an entry is reused
// while the schema text is unchanged (sources may replace tools).
type schemaCache struct {
	mu      sync.Mutex
	entries map[string]*compiledSchema
}

type compiledSchema struct {
	name, text string
	doc        any      // the schema as jsonschema.UnmarshalJSON decoded it
	nullable   []string // top-level properties that accept null
	properties []string // top-level property names, for "did you mean"
	compileErr error    // found while building: remembered so a broken schema is not recompiled per call
	memo       validationMemo
	quick      *quickSchema // nil unless the schema is a flat object of typed properties
	// full is the general validator, compiled on first need when the quick
	// check vouches for the schema (most documents then never need it).
	full struct {
		once   sync.Once
		schema *jsonschema.Schema
		err    error
	}
}

func (c *schemaCache) get(name string, schema json.RawMessage) (*compiledSchema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[name]; ok && e.text == string(schema) {
		return e, e.compileErr
	}
	// The name may be a substring of a document (the tool a use calls):
	// kept, it would keep that whole text alive.
	name = strings.Clone(name)
	e := compileSchema(name, schema)
	if c.entries == nil {
		c.entries = map[string]*compiledSchema{}
	}
	c.entries[name] = e
	return e, e.compileErr
}

func compileSchema(name string, schema json.RawMessage) *compiledSchema {
	e := &compiledSchema{name: name, text: string(schema)}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		e.compileErr = err
		return e
	}
	e.doc = doc
	quick, sound := compileQuick(doc)
	if !sound {
		// Only a schema the quick check read in full is known to compile:
		// any other is compiled now, so a broken one is reported at once.
		if _, err := e.fullSchema(); err != nil {
			e.compileErr = err
			return e
		}
	}
	e.quick = quick
	if obj, ok := doc.(map[string]any); ok {
		props, _ := obj["properties"].(map[string]any)
		for p, ps := range props {
			e.properties = append(e.properties, p)
			if acceptsNull(ps) {
				e.nullable = append(e.nullable, p)
			}
		}
		sort.Strings(e.properties)
	}
	return e
}

// fullSchema is the general validator of the schema, compiled once.
func (cs *compiledSchema) fullSchema() (*jsonschema.Schema, error) {
	cs.full.once.Do(func() {
		loc := "mem:///tools/" + url.PathEscape(cs.name) + ".json"
		c := jsonschema.NewCompiler()
		if cs.full.err = c.AddResource(loc, cs.doc); cs.full.err == nil {
			cs.full.schema, cs.full.err = c.Compile(loc)
		}
	})
	return cs.full.schema, cs.full.err
}

// acceptsNull reports whether a property schema allows null by its type.
func acceptsNull(ps any) bool {
	m, ok := ps.(map[string]any)
	if !ok {
		return false
	}
	switch t := m["type"].(type) {
	case string:
		return t == "null"
	case []any:
		for _, x := range t {
			if x == "null" {
				return true
			}
		}
	}
	return false
}

var englishPrinter = message.NewPrinter(language.English)

func (cs *compiledSchema) validate(input map[string]any) []ValidationError {
	if input == nil {
		input = map[string]any{}
	}
	// Omitted nullable properties count as null; copy so the caller's map stays as written.
	filled := make(map[string]any, len(input)+len(cs.nullable))
	for k, v := range input {
		filled[k] = v
	}
	for _, p := range cs.nullable {
		if _, ok := filled[p]; !ok {
			filled[p] = nil
		}
	}
	schema, err := cs.fullSchema()
	if err != nil {
		return schemaInvalid(cs.name, err)
	}
	err = schema.Validate(map[string]any(filled))
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []ValidationError{{Path: []string{}, Message: "input: " + err.Error()}}
	}
	var out []ValidationError
	cs.collect(ve, &out)
	type keyed struct {
		key string
		err ValidationError
	}
	sorted := make([]keyed, len(out))
	for i := range out {
		sorted[i] = keyed{strings.Join(out[i].Path, "/"), out[i]}
	}
	slices.SortStableFunc(sorted, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	for i := range sorted {
		out[i] = sorted[i].err
	}
	return dedupe(out)
}

// maxSuggestions bounds the "did you mean" searches of one validation: an
// input with 50,000 unknown keys is no typo.
const maxSuggestions = 50

// collect flattens the error tree into leaves with field-first messages.
func (cs *compiledSchema) collect(ve *jsonschema.ValidationError, out *[]ValidationError) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			cs.collect(c, out)
		}
		return
	}
	loc := append([]string{}, ve.InstanceLocation...)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, fieldError(append(loc, m), "missing required property"))
		}
	case *kind.AdditionalProperties:
		for i, p := range k.Properties {
			msg := "unknown property"
			if len(loc) == 0 && i < maxSuggestions {
				if s := didyoumean.Closest(p, cs.properties); s != "" {
					msg += fmt.Sprintf(" (did you mean %s?)", s)
				}
			}
			*out = append(*out, fieldError(append(loc, p), msg))
		}
	case *kind.Type:
		*out = append(*out, fieldError(loc, fmt.Sprintf("expected %s, got %s", typeList(k.Want), k.Got)))
	case *kind.Minimum:
		*out = append(*out, fieldError(loc, fmt.Sprintf("must be at least %s, got %s", ratString(k.Want), ratString(k.Got))))
	case *kind.ExclusiveMinimum:
		*out = append(*out, fieldError(loc, fmt.Sprintf("must be greater than %s, got %s", ratString(k.Want), ratString(k.Got))))
	case *kind.Maximum:
		*out = append(*out, fieldError(loc, fmt.Sprintf("must be at most %s, got %s", ratString(k.Want), ratString(k.Got))))
	case *kind.MaxLength:
		*out = append(*out, fieldError(loc, fmt.Sprintf("longer than %d characters (%d)", k.Want, k.Got)))
	case *kind.Enum:
		*out = append(*out, fieldError(loc, fmt.Sprintf("must be one of %s", enumList(k.Want))))
	default:
		*out = append(*out, fieldError(loc, ve.ErrorKind.LocalizedString(englishPrinter)))
	}
}

func fieldError(path []string, msg string) ValidationError {
	field := "input"
	if len(path) > 0 {
		field = strings.Join(path, ".")
	}
	return ValidationError{Path: path, Message: field + ": " + msg}
}

// typeList names the wanted types with null last: "string or null".
func typeList(want []string) string {
	sorted := append([]string{}, want...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[j] == "null" && sorted[i] != "null" })
	return strings.Join(sorted, " or ")
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func enumList(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		if v == nil {
			parts[i] = "null"
			continue
		}
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

func dedupe(errs []ValidationError) []ValidationError {
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		if seen[e.Message] {
			continue
		}
		seen[e.Message] = true
		out = append(out, e)
	}
	return out
}

// maxListedViolations bounds the error result: the model gets the first
// violations and a count.
const maxListedViolations = 20

// formatValidation renders violations as the error result text.
func formatValidation(tool string, errs []ValidationError) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Invalid input for %s:", tool)
	for i, e := range errs {
		if i == maxListedViolations {
			fmt.Fprintf(&b, "\n- … and %d more", len(errs)-maxListedViolations)
			break
		}
		b.WriteString("\n- ")
		b.WriteString(e.Message)
	}
	return b.String()
}
