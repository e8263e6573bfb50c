package tools

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
	if o.tmux() && TmuxTools[name] {
		if _, ok := o.Registry.Lookup(name); !ok {
			return tmuxRegistry()
		}
	}
	return o.Registry // without tmux, no lookup: this runs for every call a document's diagnostics check
}

func (o OnTarget) Lookup(name string) (Tool, bool) { return o.registryOf(name).Lookup(name) }

// waitApplies says whether a call of name may carry bash's `wait`, which
// only a tmux target accepts and checks itself.
func (o OnTarget) waitApplies(name string) bool { return name == "bash" && o.tmux() }

// waitInput splits bash's `wait` off the input on a tmux target: the
// registry's bash has no such property. ok is false when there is none.
func (o OnTarget) waitInput(name string, input map[string]any) (rest map[string]any, problem []ValidationError, ok bool) {
	w, has := input["wait"]
	if !has || !o.waitApplies(name) {
		return input, nil, false
	}
	if _, msg := waitArg(w); msg != "" {
		problem = []ValidationError{{Path: []string{"wait"}, Message: "wait: " + msg}}
	}
	return withoutKey(input, "wait"), problem, true
}

// Validate is Registry.Validate with this target's tools.
func (o OnTarget) Validate(name string, input map[string]any) []ValidationError {
	rest, problem, _ := o.waitInput(name, input)
	return append(o.registryOf(name).Validate(name, rest), problem...)
}

// ValidateText is Registry.ValidateText with this target's tools.
func (o OnTarget) ValidateText(name, text string, decode func(string) map[string]any) []ValidationError {
	if o.waitApplies(name) { // only then does the input need a look first
		if rest, problem, ok := o.waitInput(name, decode(text)); ok {
			return append(o.registryOf(name).Validate(name, rest), problem...)
		}
	}
	return o.registryOf(name).ValidateText(name, text, decode)
}

// InvalidInput is Registry.InvalidInput with this target's tools.
func (o OnTarget) InvalidInput(name string, input map[string]any) string {
	if errs := o.Validate(name, input); len(errs) > 0 {
		return formatValidation(name, errs)
	}
	return ""
}
