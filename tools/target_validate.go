package tools

import "sync"

// OnTarget is the registry as a document on target t sees it (SPEC §8):
// the tmux tools where t has tmux, and bash's `wait` accepted there. The
// runner, the cycle's validity check and the diagnostics all ask it, so
// a call is valid in the editor exactly when it runs.
type OnTarget struct {
	*Registry
	Target *TargetEnv
}

// Stamp sums up what this view's answers depend on besides the call: the
// registry's generation and whether the target has tmux. Equal stamps
// give equal verdicts for the same call.
func (o OnTarget) Stamp() Stamp { return Stamp{o.Registry.Generation(), o.tmux()} }

// Stamp is OnTarget.Stamp's value; comparable.
type Stamp struct {
	generation uint64
	tmux       bool
}

func (o OnTarget) tmux() bool { return o.Target != nil && o.Target.Tmux != nil }

// registryOf is the registry that holds name for this target.
func (o OnTarget) registryOf(name string) *Registry {
	if o.tmux() && isPaneOnly(builtinNamed(name)) {
		if _, ok := o.Registry.Lookup(name); !ok {
			return paneRegistry()
		}
	}
	return o.Registry // without tmux, no lookup: this runs for every call a document's diagnostics check
}

// paneRegistry holds the built-ins a target with tmux adds: they are not
// in a registry's built-ins, as no other target offers them.
var paneRegistry = sync.OnceValue(func() *Registry { return NewRegistry(paneOnlyBuiltins()) })

func (o OnTarget) Lookup(name string) (Tool, bool) { return o.registryOf(name).Lookup(name) }

// paneRunner is the tool called name when it runs in this target's pane,
// where it may take input the registry's schema has not (bash's `wait`).
func (o OnTarget) paneRunner(name string) (PaneRunner, bool) {
	if !o.tmux() {
		return nil, false
	}
	p, ok := builtinNamed(name).(PaneRunner)
	return p, ok
}

// paneInput splits the pane's own input off for the pane runner called
// name; ok is false when there is none.
func (o OnTarget) paneInput(name string, input map[string]any) (rest map[string]any, problem []ValidationError, ok bool) {
	if p, runs := o.paneRunner(name); runs {
		return p.PaneInput(input)
	}
	return input, nil, false
}

// Validate is Registry.Validate with this target's tools.
func (o OnTarget) Validate(name string, input map[string]any) []ValidationError {
	rest, problem, ok := o.paneInput(name, input)
	if !ok {
		rest = input
	}
	return append(o.registryOf(name).Validate(name, rest), problem...)
}

// ValidateText is Registry.ValidateText with this target's tools.
func (o OnTarget) ValidateText(name, text string, decode func(string) map[string]any) []ValidationError {
	if _, runs := o.paneRunner(name); runs { // only then does the input need a look first
		if rest, problem, ok := o.paneInput(name, decode(text)); ok {
			return append(o.registryOf(name).Validate(name, rest), problem...)
		}
	}
	return o.registryOf(name).ValidateText(name, text, decode)
}

// InvalidInputText is InvalidInput of an input given as its JSON text,
// decoded only when the text does not tell (ValidateText): a valid input
// of a flat schema needs no general validator.
func (o OnTarget) InvalidInputText(name, text string, decode func(string) map[string]any) string {
	if errs := o.ValidateText(name, text, decode); len(errs) > 0 {
		return formatValidation(name, errs)
	}
	return ""
}

// InvalidInput is Registry.InvalidInput with this target's tools.
func (o OnTarget) InvalidInput(name string, input map[string]any) string {
	if errs := o.Validate(name, input); len(errs) > 0 {
		return formatValidation(name, errs)
	}
	return ""
}
