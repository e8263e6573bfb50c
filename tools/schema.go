package tools

import "encoding/json"

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
