package approval

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/chatls/chatls/config"
)

// Layer names and priorities (SPEC §4).
const (
	layerUser        = "user"
	layerWorkspace   = "workspace"
	layerFrontmatter = "frontmatter"
)

var layerPriority = map[string]int{layerUser: 100, layerWorkspace: 90, layerFrontmatter: 80}

// origin is where a list entry was written.
type origin struct {
	layer   string
	file    string
	line    int
	trusted bool
}

func (o origin) where() string {
	switch {
	case o.file != "" && o.line > 0:
		return fmt.Sprintf("%s:%d", o.file, o.line)
	case o.file != "":
		return o.file
	}
	return o.layer + " settings"
}

// entry is one rule in an effective list, with the layer that added it.
type entry struct {
	rule   *rule
	origin origin
	preset string // "$default" when it came from a preset
	reason string // [[tools.rules]] reason
}

func (e entry) key() string { return e.rule.text }

// removal records a list entry a layer took out, for traces.
type removal struct {
	key    string
	by     origin
	denied bool // a deny entry a trusted layer removed
}

// ignoredAddition is an approval an untrusted layer tried to add.
type ignoredAddition struct {
	key string
	by  origin
}

// ruleSet is the effective policy lists after all layers.
type ruleSet struct {
	approve, ask, deny []entry
	removed            []removal
	ignoredRemovals    []ignoredAddition // untrusted removals of denies
	requireApproval    bool
	sandboxed          bool
	writable           []string // sandbox.writable from trusted layers
	resolvers          []config.Resolver
	warnings           []string
}

// layerBuilder applies one layer's changes to the lists.
type layerBuilder struct {
	set     *ruleSet
	presets map[string]config.Preset
	home    string
}

// expand turns a list value (preset or rule) into entries; a preset's deny
// part goes to the deny list.
func (b *layerBuilder) expand(value string, o origin, seen map[string]bool) ([]entry, []entry, error) {
	if !strings.HasPrefix(value, "$") {
		r, err := parseRule(value, b.home)
		if err != nil {
			return nil, nil, err
		}
		return []entry{{rule: r, origin: o}}, nil, nil
	}
	p, ok := b.presets[value]
	if !ok {
		return nil, nil, fmt.Errorf("unknown preset %q; define it under [tools.presets] or use $readonly, $default or $standard", value)
	}
	if seen[value] {
		return nil, nil, fmt.Errorf("preset %q includes itself", value)
	}
	seen[value] = true
	defer delete(seen, value)
	var approve, deny []entry
	for _, v := range p.Approve {
		a, d, err := b.expand(v, o, seen)
		if err != nil {
			return nil, nil, fmt.Errorf("in preset %s: %w", value, err)
		}
		for i := range a {
			if a[i].preset == "" {
				a[i].preset = value
			}
		}
		approve = append(approve, a...)
		deny = append(deny, d...)
	}
	for _, v := range p.Deny {
		a, d, err := b.expand(v, o, seen)
		if err != nil {
			return nil, nil, fmt.Errorf("in preset %s: %w", value, err)
		}
		for _, x := range append(a, d...) {
			x.preset = value
			deny = append(deny, x)
		}
	}
	return approve, deny, nil
}

func (b *layerBuilder) expandAll(values []string, o origin, lineOf func(string) int) (approve, deny []entry, errs []error) {
	for _, v := range values {
		oo := o
		if lineOf != nil {
			if l := lineOf(v); l > 0 {
				oo.line = l
			}
		}
		a, d, err := b.expand(v, oo, map[string]bool{})
		if err != nil {
			errs = append(errs, locate(oo, err))
			continue
		}
		approve = append(approve, a...)
		deny = append(deny, d...)
	}
	return approve, deny, errs
}

// locate prefixes an error with file:line.
func locate(o origin, err error) error {
	return fmt.Errorf("%s: %w", o.where(), err)
}

// setList replaces the approval list (Flemma's `auto_approve = {…}`):
// entries already inherited keep their origin, so an untrusted layer that
// lists them again does not change anything; new ones carry its trust.
func (b *layerBuilder) setList(entries []entry, o origin) {
	old := b.set.approve
	inherited := map[string]entry{}
	for _, e := range old {
		inherited[e.key()] = e
	}
	keep := map[string]bool{}
	var out []entry
	for _, e := range entries {
		if keep[e.key()] {
			continue
		}
		keep[e.key()] = true
		if prev, ok := inherited[e.key()]; ok {
			out = append(out, prev)
		} else {
			out = append(out, e)
		}
	}
	for _, e := range old {
		if !keep[e.key()] {
			b.set.removed = append(b.set.removed, removal{key: e.key(), by: o})
		}
	}
	b.set.approve = out
}

func (b *layerBuilder) addList(entries []entry, front bool) {
	have := map[string]bool{}
	for _, e := range b.set.approve {
		have[e.key()] = true
	}
	var add []entry
	for _, e := range entries {
		if !have[e.key()] {
			have[e.key()] = true
			add = append(add, e)
		}
	}
	if front {
		b.set.approve = append(add, b.set.approve...)
	} else {
		b.set.approve = append(b.set.approve, add...)
	}
}

// removeFromList takes values out: a preset removes its members, a bare
// tool name removes every entry for that tool, a rule removes itself.
func (b *layerBuilder) removeFromList(values []string, o origin) {
	for _, v := range values {
		drop := func(e entry) bool { return e.key() == v }
		if strings.HasPrefix(v, "$") {
			members, _, err := b.expand(v, o, map[string]bool{})
			if err != nil {
				b.set.warnings = append(b.set.warnings, locate(o, err).Error())
				continue
			}
			keys := map[string]bool{}
			for _, m := range members {
				keys[m.key()] = true
			}
			drop = func(e entry) bool { return keys[e.key()] }
		} else if !strings.Contains(v, "(") {
			drop = func(e entry) bool { return e.rule.tool == v }
		}
		var out []entry
		for _, e := range b.set.approve {
			if drop(e) {
				b.set.removed = append(b.set.removed, removal{key: e.key(), by: o})
				continue
			}
			out = append(out, e)
		}
		b.set.approve = out
	}
}

func (b *layerBuilder) addDeny(entries []entry) {
	b.set.deny = append(b.set.deny, entries...)
}

// applySettings applies a TOML/JSON layer: autoApprove (set), then
// autoApproveRemove, then autoApproveAppend; deny and rules add.
func (b *layerBuilder) applySettings(s config.Settings, o origin) []error {
	var errs []error
	t := s.Tools
	lineOf := func(key string) func(string) int {
		return func(v string) int { return s.Line(key, v) }
	}
	if t.AutoApprove != nil {
		a, d, e := b.expandAll(t.AutoApprove, o, lineOf("tools.autoApprove"))
		errs = append(errs, e...)
		b.setList(a, o)
		b.addDeny(d)
	}
	if t.AutoApproveRemove != nil {
		b.removeFromList(t.AutoApproveRemove, o)
	}
	if t.AutoApproveAppend != nil {
		a, d, e := b.expandAll(t.AutoApproveAppend, o, lineOf("tools.autoApproveAppend"))
		errs = append(errs, e...)
		b.addList(a, false)
		b.addDeny(d)
	}
	a, d, e := b.expandAll(t.Deny, o, lineOf("tools.deny"))
	errs = append(errs, e...)
	b.addDeny(a)
	b.addDeny(d)
	for _, r := range t.Rules {
		ro := o
		if l := s.Line("tools.rules", r.Rule); l > 0 {
			ro.line = l
		}
		compiled, err := parseRule(r.Rule, b.home)
		if err != nil {
			errs = append(errs, locate(ro, err))
			continue
		}
		en := entry{rule: compiled, origin: ro, reason: r.Reason}
		switch strings.ToLower(r.Decision) {
		case "approve", "allow":
			b.set.approve = append(b.set.approve, en)
		case "ask", "require_approval":
			b.set.ask = append(b.set.ask, en)
		case "deny":
			b.set.deny = append(b.set.deny, en)
		default:
			errs = append(errs, locate(ro, fmt.Errorf("rule %q: decision %q must be approve, ask or deny", r.Rule, r.Decision)))
			continue
		}
		if err := checkExamples(compiled, r, b.home); err != nil {
			errs = append(errs, locate(ro, err))
		}
	}
	if v := t.RequireApproval; v != nil && (o.trusted || *v) {
		b.set.requireApproval = *v
	}
	if v := t.AutoApproveSandboxed; v != nil && (o.trusted || !*v) {
		b.set.sandboxed = *v
	}
	if o.trusted {
		b.set.writable = append(b.set.writable, s.Sandbox.Writable...)
		b.set.resolvers = append(b.set.resolvers, s.Resolvers...)
	}
	return errs
}

// applyFrontmatter applies the document's option ops in order. Bad entries
// are skipped with a warning: a document can't break the policy.
func (b *layerBuilder) applyFrontmatter(ops []FrontmatterOp, file string, trusted bool) {
	for _, op := range ops {
		o := origin{layer: layerFrontmatter, file: file, line: op.Line + 1, trusted: trusted}
		key := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(op.Path, "flemma.opt."), "_", ""))
		values, bools := opValues(op.Values)
		switch key {
		case "tools.autoapprove":
			switch op.Op {
			case "remove":
				b.removeFromList(values, o)
				continue
			}
			a, d, errs := b.expandAll(values, o, nil)
			for _, err := range errs {
				b.set.warnings = append(b.set.warnings, err.Error())
			}
			switch op.Op {
			case "set":
				b.setList(a, o)
			case "append":
				b.addList(a, false)
			case "prepend":
				b.addList(a, true)
			default:
				b.set.warnings = append(b.set.warnings, locate(o, fmt.Errorf("unknown list operation %q", op.Op)).Error())
			}
			b.addDeny(d)
		case "tools.deny":
			if op.Op == "remove" || op.Op == "set" {
				b.removeDenies(values, o, op.Op == "set")
				if op.Op == "remove" {
					continue
				}
			}
			a, d, errs := b.expandAll(values, o, nil)
			for _, err := range errs {
				b.set.warnings = append(b.set.warnings, err.Error())
			}
			b.addDeny(append(a, d...))
		case "tools.requireapproval":
			if len(bools) == 1 && (trusted || bools[0]) {
				b.set.requireApproval = bools[0]
			}
		}
	}
}

// removeDenies drops deny entries; only a trusted layer may (it widens).
// With keepListed, entries named in values stay (a `set`).
func (b *layerBuilder) removeDenies(values []string, o origin, keepListed bool) {
	named := map[string]bool{}
	for _, v := range values {
		named[v] = true
	}
	var out []entry
	for _, e := range b.set.deny {
		hit := named[e.key()] || named[e.rule.tool] && !strings.Contains(e.key(), "(")
		if keepListed {
			hit = !named[e.key()]
		}
		if !hit {
			out = append(out, e)
			continue
		}
		if !o.trusted {
			b.set.ignoredRemovals = append(b.set.ignoredRemovals, ignoredAddition{key: e.key(), by: o})
			out = append(out, e)
			continue
		}
		b.set.removed = append(b.set.removed, removal{key: e.key(), by: o, denied: true})
	}
	b.set.deny = out
}

func opValues(vals []any) (strs []string, bools []bool) {
	for _, v := range vals {
		switch x := v.(type) {
		case string:
			strs = append(strs, x)
		case bool:
			bools = append(bools, x)
		case []any:
			s, bs := opValues(x)
			strs = append(strs, s...)
			bools = append(bools, bs...)
		}
	}
	return strs, bools
}

// trustedRoot reports whether root matches one of the user's trust.workspaces
// globs (~ expanded; a directory glob also covers what is below it).
func trustedRoot(root string, globs []string, home string) bool {
	if root == "" {
		return false
	}
	for _, g := range globs {
		switch {
		case g == "~":
			g = home
		case strings.HasPrefix(g, "~/"):
			g = filepath.Join(home, g[2:])
		}
		if !filepath.IsAbs(g) {
			continue // relative trust globs would trust whatever the cwd is
		}
		g = canonicalGlobPrefix(filepath.Clean(g))
		if ok, _ := doublestar.Match(g, root); ok {
			return true
		}
		if ok, _ := doublestar.Match(strings.TrimSuffix(g, "/")+"/**", root); ok {
			return true
		}
	}
	return false
}
