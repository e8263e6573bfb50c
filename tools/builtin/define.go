package builtin

import (
	"encoding/json"
	"sync"

	"github.com/chatls/chatls/tools"
)

// define declares a built-in: d's name, description and annotations, with
// Source "builtin" and the strict schema of props. The definition is built
// once, on first use: Definition is called per validation and preview.
func define(d tools.Definition, props ...property) func() tools.Definition {
	return sync.OnceValue(func() tools.Definition {
		d.Source = "builtin"
		d.Schema = strictSchema(props...)
		return d
	})
}

// readOnly and destructive are the MCP-style annotations of the built-ins
// that say so (informational: never used to approve).
func readOnly() map[string]any    { return map[string]any{"readOnlyHint": true} }
func destructive() map[string]any { return map[string]any{"destructiveHint": true} }

// property is one input field of a built-in tool.
type property struct {
	name        string
	types       []string // JSON types; "null" makes the field optional
	description string
	extra       map[string]any // further keywords: minimum, enum…
}

func required(name, typ, description string) property {
	return property{name: name, types: []string{typ}, description: description}
}

func optional(name, typ, description string) property {
	return property{name: name, types: []string{typ, "null"}, description: description}
}

func (p property) with(key string, value any) property {
	extra := map[string]any{key: value}
	for k, v := range p.extra {
		extra[k] = v
	}
	p.extra = extra
	return p
}

var labelProperty = optional("label", "string", "A short human-readable label for this call, e.g. 'reading config'")

// strictSchema builds the SPEC §5 shape: every property required, optional
// ones nullable, no additional properties, and the optional `label`.
func strictSchema(props ...property) json.RawMessage {
	props = append([]property{labelProperty}, props...)
	properties := map[string]any{}
	names := make([]string, 0, len(props))
	for _, p := range props {
		s := map[string]any{"description": p.description}
		if len(p.types) == 1 {
			s["type"] = p.types[0]
		} else {
			s["type"] = p.types
		}
		for k, v := range p.extra {
			s[k] = v
		}
		properties[p.name] = s
		names = append(names, p.name)
	}
	b, err := json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           properties,
		"required":             names,
		"additionalProperties": false,
	})
	if err != nil {
		panic(err) // built from literals; cannot fail
	}
	return b
}
