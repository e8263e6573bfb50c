package tools

import (
	"maps"
	"slices"
	"sync/atomic"
)

// Built-ins are known by name beyond any registry: what is asked with a
// name or a definition alone — a call's preview, where it runs, what a
// target offers — goes to the built-in of that name and its optional
// behaviours. A plugin never takes a built-in's name (a registry keeps the
// built-in), so the name decides.
var builtinNames atomic.Pointer[builtinSet]

type builtinSet struct {
	byName map[string]Tool
	names  []string // in the order of registration
}

// RegisterBuiltins makes ts known by name; the packages defining built-ins
// call it from their init (tools/builtin, tools/lsp). A later tool of the
// same name replaces an earlier one.
func RegisterBuiltins(ts ...Tool) {
	for {
		old := builtinNames.Load()
		next := &builtinSet{byName: map[string]Tool{}}
		if old != nil {
			next.byName, next.names = maps.Clone(old.byName), slices.Clone(old.names)
		}
		for _, t := range ts {
			name := t.Definition().Name
			if _, known := next.byName[name]; !known {
				next.names = append(next.names, name)
			}
			next.byName[name] = t
		}
		if builtinNames.CompareAndSwap(old, next) {
			return
		}
	}
}

// builtinNamed is the built-in called name, nil when there is none.
func builtinNamed(name string) Tool {
	if s := builtinNames.Load(); s != nil {
		return s.byName[name]
	}
	return nil
}

// paneOnlyBuiltins are the built-ins a target with tmux adds.
func paneOnlyBuiltins() []Tool {
	var out []Tool
	if s := builtinNames.Load(); s != nil {
		for _, name := range s.names {
			if t := s.byName[name]; isPaneOnly(t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func isPaneOnly(t Tool) bool     { _, ok := t.(PaneOnly); return ok }
func isPaneRunner(t Tool) bool   { _, ok := t.(PaneRunner); return ok }
func isRemoteRunner(t Tool) bool { _, ok := t.(RemoteRunner); return ok }
func isFileless(t Tool) bool     { _, ok := t.(Fileless); return ok }
