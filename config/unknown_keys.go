package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/chatls/chatls/internal/didyoumean"
)

// unknownKey is a key the settings structs don't have.
type unknownKey struct {
	path       string // dotted, with [i] for list elements: tools.rules[0].matchh
	suggestion string // dotted path of the likely intended key, or ""
}

func (u unknownKey) message() string {
	if u.suggestion != "" {
		return fmt.Sprintf("unknown key %q (did you mean %q?)", u.path, u.suggestion)
	}
	return fmt.Sprintf("unknown key %q (it is ignored; see docs/policy.md for the settings keys)", u.path)
}

// unknownKeys walks a decoded document against the Settings type, using the
// struct tag named tag ("json" or "toml") for key names.
func unknownKeys(doc map[string]any, tag string) []unknownKey {
	var out []unknownKey
	walkKeys(doc, reflect.TypeOf(Settings{}), tag, "", &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func walkKeys(v any, t reflect.Type, tag, prefix string, out *[]unknownKey) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
			if name == "" || name == "-" {
				continue
			}
			fields[name] = f.Type
		}
		for k, sub := range m {
			ft, ok := fields[k]
			if !ok {
				*out = append(*out, unknownKey{path: join(prefix, k), suggestion: suggest(k, fields, prefix)})
				continue
			}
			walkKeys(sub, ft, tag, join(prefix, k), out)
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, sub := range m {
			walkKeys(sub, t.Elem(), tag, join(prefix, k), out)
		}
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			return
		}
		for i, sub := range list {
			walkKeys(sub, t.Elem(), tag, fmt.Sprintf("%s[%d]", prefix, i), out)
		}
	}
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// suggest picks the known key closest to k: same letters ignoring case and
// underscores (Flemma's auto_approve → autoApprove), else edit distance ≤ 2.
func suggest(k string, fields map[string]reflect.Type, prefix string) string {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	best, bestDist := "", 3
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if norm(name) == norm(k) {
			return join(prefix, name)
		}
		if d := didyoumean.Distance(strings.ToLower(k), strings.ToLower(name)); d < bestDist {
			best, bestDist = name, d
		}
	}
	if best == "" {
		return ""
	}
	return join(prefix, best)
}
