package tools

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chatls/chatls/internal/jsonfast"
)

// quickSchema answers "valid" for an input's JSON text without decoding it,
// for the one shape SPEC §5 gives every built-in tool (and most MCP tools
// have): a flat object of typed properties. It never finds an error: when it
// is not sure, the input goes to the full validator, which words the errors.
// So the only thing it must never do is call an input valid that the full
// validator rejects (FuzzQuickSchemaNeverAcceptsWhatValidateRejects).
//
// It exists for diagnostics over a whole document: decoding 11,500 inputs
// into maps and walking them through the general validator was 40% of
// `chatls check` on a 10 MB conversation.
type quickSchema struct {
	props  map[string]*quickProperty
	closed bool   // additionalProperties: false
	needed uint64 // properties that must be present: required and not nullable
}

type quickProperty struct {
	bit    uint64
	kinds  kindSet // 0: any
	bounds []numberBound
	// minLen/maxLen bound a string's characters; -1 when not set.
	minLen, maxLen int
	// opaque: a keyword the quick check does not know (enum, items,
	// pattern…); an input that has the property goes to the full validator.
	opaque bool
}

type kindSet uint8

const (
	kindString kindSet = 1 << iota
	kindNumber         // any number; "integer" below is a subset
	kindInteger
	kindBoolean
	kindNull
	kindObject
	kindArray
)

var kindByName = map[string]kindSet{"string": kindString, "number": kindNumber, "integer": kindInteger,
	"boolean": kindBoolean, "null": kindNull, "object": kindObject, "array": kindArray}

type numberBound struct {
	limit float64
	below bool // a maximum (else a minimum)
	open  bool // exclusive
}

// annotations are keywords that never make an instance invalid.
var annotations = map[string]bool{"description": true, "title": true, "$comment": true, "examples": true,
	"default": true, "deprecated": true, "readOnly": true, "writeOnly": true}

// compileQuick builds the quick check of a schema document as
// jsonschema.UnmarshalJSON returns it (numbers as json.Number), or nil when
// the schema is anything but the flat shape. sound says it read every
// keyword and found each well-formed, so the schema surely compiles: its
// general validator can wait until an input needs it.
func compileQuick(doc any) (q *quickSchema, sound bool) {
	obj, ok := doc.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, false
	}
	q, sound = &quickSchema{props: map[string]*quickProperty{}}, true
	for key, v := range obj {
		switch key {
		case "type":
		case "properties":
			props, ok := v.(map[string]any)
			if !ok || len(props) > 64 {
				return nil, false
			}
			for name, ps := range props {
				p, propSound := compileQuickProperty(ps)
				if p == nil {
					return nil, false
				}
				p.bit = 1 << len(q.props)
				q.props[name] = p
				sound = sound && propSound
			}
		case "required":
		case "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				return nil, false
			}
			q.closed = !b
		default:
			if !annotations[key] {
				return nil, false
			}
			sound = sound && isText(key, v)
		}
	}
	required, _ := obj["required"].([]any)
	if _, present := obj["required"]; present && required == nil {
		return nil, false
	}
	listed := map[string]bool{}
	for _, r := range required {
		name, ok := r.(string)
		p := q.props[name]
		if !ok || p == nil {
			return nil, false
		}
		sound = sound && !listed[name] // the metaschema wants each name once
		listed[name] = true
		// An omitted nullable property counts as null (compiledSchema.validate).
		if p.kinds&kindNull == 0 {
			q.needed |= p.bit
		}
	}
	return q, sound
}

// isText reports whether an annotation is a description or title with a
// string value: the only annotations soundness vouches for.
func isText(key string, v any) bool {
	_, ok := v.(string)
	return ok && (key == "description" || key == "title")
}

func compileQuickProperty(schema any) (p *quickProperty, sound bool) {
	ps, ok := schema.(map[string]any)
	if !ok {
		return nil, false
	}
	p, sound = &quickProperty{minLen: -1, maxLen: -1}, true
	for key, v := range ps {
		switch key {
		case "type":
			if p.kinds = kindsOf(v); p.kinds == 0 {
				return nil, false
			}
		case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum":
			limit, ok := exactFloat(v)
			if !ok {
				p.opaque = true
				continue
			}
			p.bounds = append(p.bounds, numberBound{limit: limit,
				below: key == "maximum" || key == "exclusiveMaximum", open: key[0] == 'e'})
		case "minLength", "maxLength":
			n, ok := v.(json.Number)
			length, err := strconv.ParseInt(string(n), 10, 32)
			if !ok || err != nil || length < 0 {
				p.opaque = true
				continue
			}
			if key == "minLength" {
				p.minLen = int(length)
			} else {
				p.maxLen = int(length)
			}
		default:
			if !annotations[key] {
				p.opaque = true
			}
			sound = sound && isText(key, v)
		}
	}
	return p, sound && !p.opaque
}

func kindsOf(v any) kindSet {
	var names []any
	switch t := v.(type) {
	case string:
		names = []any{t}
	case []any:
		names = t
	}
	var k kindSet
	for _, n := range names {
		s, _ := n.(string)
		if kindByName[s] == 0 || k&kindByName[s] != 0 {
			return 0 // unknown, or named twice: the metaschema wants each once
		}
		k |= kindByName[s]
	}
	if k&kindNumber != 0 {
		k |= kindInteger
	}
	return k
}

// exactFloat is a schema number as a float64 when the float64 is that
// number exactly, so that comparing an input's float64 with it agrees with
// the full validator's exact rational comparison.
func exactFloat(v any) (float64, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return 0, false
	}
	f, exact := r.Float64()
	return f, exact
}

// valid reports whether the full validator surely accepts text; false means
// "not sure", never "invalid". The text is read as the input's decoding
// reads it (jsonfast.Members): the same keys, strings and numbers.
// A duplicate key is fine: each of its values is checked, and the decoding
// keeps the last.
func (q *quickSchema) valid(text string) bool {
	var seen uint64
	m := jsonfast.NewMembers(text)
	for key, raw, ok := m.Next(); ok; key, raw, ok = m.Next() {
		p := q.props[key]
		switch {
		case p == nil:
			if q.closed {
				return false
			}
			continue
		case p.opaque || !p.accepts(raw):
			return false
		}
		seen |= p.bit
	}
	return m.Valid() && seen&q.needed == q.needed
}

// accepts reports whether a value, given by its (checked) text, surely
// passes the property's checks.
func (p *quickProperty) accepts(raw string) bool {
	kind := kindOf(raw)
	if p.kinds != 0 && p.kinds&kind == 0 {
		return false
	}
	switch {
	case kind == kindString && (p.minLen >= 0 || p.maxLen >= 0):
		body := raw[1 : len(raw)-1]
		if strings.IndexByte(body, '\\') >= 0 {
			return false // escapes: its length is the full validator's to count
		}
		// Each invalid byte counts one here and decodes to one U+FFFD there.
		n := utf8.RuneCountInString(body)
		return n >= p.minLen && (p.maxLen < 0 || n <= p.maxLen)
	case kind&(kindNumber|kindInteger) != 0 && len(p.bounds) > 0:
		// The decoded input holds strconv.ParseFloat's value (chatdoc.DecodeInput).
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return false
		}
		for _, b := range p.bounds {
			if !b.holds(f) {
				return false
			}
		}
	}
	return true
}

// kindOf names the JSON kind of a value's text: kindInteger for a number
// written without fraction or exponent, kindNumber for any other number.
func kindOf(raw string) kindSet {
	switch raw[0] {
	case '"':
		return kindString
	case '{':
		return kindObject
	case '[':
		return kindArray
	case 't', 'f':
		return kindBoolean
	case 'n':
		return kindNull
	}
	if strings.ContainsAny(raw, ".eE") {
		return kindNumber
	}
	return kindInteger
}

func (b numberBound) holds(f float64) bool {
	switch {
	case b.below && b.open:
		return f < b.limit
	case b.below:
		return f <= b.limit
	case b.open:
		return f > b.limit
	}
	return f >= b.limit
}
