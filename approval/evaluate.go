package approval

import (
	"fmt"
	"strings"
)

// answer is one layer's view of one part.
type answer struct {
	decision Decision // Pass, Approve, RequireApproval or Deny
	entry    *entry
	why      string   // extra detail (deny that may match…)
	ignored  []*entry // untrusted approvals that would have matched
}

type evaluation struct {
	steps []Step
}

var ruleLayers = []string{layerUser, layerWorkspace, layerFrontmatter}

// evaluateRules runs the three rule layers and the safety checks over every
// part of the call and turns the result into trace steps.
func (e *Engine) evaluateRules(call Call, env callEnv) evaluation {
	parts, opaque := e.parts(call, env)
	answers := make([]map[string]*answer, len(parts))
	for i := range parts {
		answers[i] = e.answerPart(&parts[i], env)
	}

	// Each part's decision: any deny, else the highest non-pass layer, else a built-in.
	final := make([]Decision, len(parts))
	firstLayer := make([]string, len(parts))
	overall := Approve
	counted := 0
	for i, p := range parts {
		final[i] = Pass
		for _, l := range ruleLayers {
			if a := answers[i][l]; a.decision == Deny {
				final[i], firstLayer[i] = Deny, l
			}
		}
		if final[i] != Deny {
			if p.denyOnly {
				continue
			}
			for _, l := range ruleLayers {
				if a := answers[i][l]; a.decision != Pass {
					final[i], firstLayer[i] = a.decision, l
					break
				}
			}
			if final[i] == Pass && p.builtin != "" && p.blocked == "" && p.secret == "" {
				final[i] = Approve
			}
		}
		if p.denyOnly && final[i] != Deny {
			continue
		}
		counted++
		overall = combine(overall, final[i])
	}
	if counted == 0 && overall == Approve {
		overall = Pass
	}

	var steps []Step
	// Safety caps: what no resolver may approve.
	var caps []string
	caps = append(caps, opaque...)
	for i, p := range parts {
		if p.denyOnly {
			continue
		}
		if p.blocked != "" {
			caps = append(caps, p.blocked)
		}
		if p.secret != "" && final[i] != Approve {
			caps = append(caps, fmt.Sprintf("%s is a sensitive path (%s): only a rule that names it approves it", pathOf(p), p.secret))
		}
	}
	safety := Step{Resolver: "safety", Priority: 1000, Decision: Pass, Reason: checkedSummary(parts)}
	if len(caps) > 0 {
		safety.Decision = RequireApproval
		safety.Reason = strings.Join(dedupe(caps), "; ")
	}
	if overall == Deny {
		safety.Decision = Pass
	}
	steps = append(steps, safety)

	for _, l := range ruleLayers {
		steps = append(steps, e.layerStep(l, parts, answers, final, firstLayer, overall))
	}
	if overall == Approve && !anyApprove(steps) && !e.src.lexical {
		// Only built-ins covered the call (cd src, set -e). On a target
		// only its own list approves, so there they ask.
		steps[1].Decision = Approve
		steps[1].Reason = "covered without a rule: " + builtinSummary(parts)
	}
	return evaluation{steps: steps}
}

// checkedSummary says what the safety check looked at when nothing in it
// must always ask: "checked `rm -rf /` (writes /); nothing that always asks
// (command substitution, eval, sensitive paths)".
func checkedSummary(parts []part) string {
	var seen []string
	for _, p := range parts {
		if !p.denyOnly && p.label != "" {
			seen = append(seen, p.label)
		}
	}
	const none = "nothing that always asks (command or process substitution, eval, sh -c, sensitive paths)"
	if len(seen) == 0 {
		return none
	}
	return "checked " + strings.Join(dedupe(seen), ", ") + "; " + none
}

func anyApprove(steps []Step) bool {
	for _, s := range steps {
		if s.Decision == Approve {
			return true
		}
	}
	return false
}

func builtinSummary(parts []part) string {
	var out []string
	for _, p := range parts {
		if p.builtin != "" && !p.denyOnly {
			out = append(out, p.label+" ("+p.builtin+")")
		}
	}
	return strings.Join(out, ", ")
}

func pathOf(p part) string {
	if p.path != "" {
		return p.path
	}
	return p.label
}

// combine folds part decisions: deny > require_approval > pass > approve.
func combine(acc, d Decision) Decision {
	rank := map[Decision]int{Approve: 0, Pass: 1, RequireApproval: 2, Deny: 3}
	if rank[d] > rank[acc] {
		return d
	}
	return acc
}

// answerPart finds, for each layer, the strongest matching entry.
func (e *Engine) answerPart(p *part, env callEnv) map[string]*answer {
	res := map[string]*answer{}
	for _, l := range ruleLayers {
		res[l] = &answer{decision: Pass}
	}
	rs := e.rules
	for i := range rs.deny {
		en := &rs.deny[i]
		a := res[en.origin.layer]
		switch e.denyMatches(en.rule, p, env) {
		case denyYes:
			if a.decision != Deny {
				a.decision, a.entry, a.why = Deny, en, ""
			}
		case denyMaybe:
			if a.decision == Pass || a.decision == Approve {
				a.decision, a.entry = RequireApproval, en
				a.why = "may match deny rule " + en.rule.text + " once variables are filled in"
			}
		}
	}
	if p.denyOnly {
		return res
	}
	for i := range rs.ask {
		en := &rs.ask[i]
		a := res[en.origin.layer]
		// An ask rule narrows, like a deny: it matches as broadly
		// (options interleaved, by effect, once variables are filled in).
		if (a.decision == Pass || a.decision == Approve) && e.denyMatches(en.rule, p, env) != denyNo {
			a.decision, a.entry = RequireApproval, en
		}
	}
	if p.blocked != "" {
		return res
	}
	for i := range rs.approve {
		en := &rs.approve[i]
		a := res[en.origin.layer]
		if a.decision != Pass || !e.allowMatches(en.rule, p, env) {
			continue
		}
		if en.origin.trusted {
			a.decision, a.entry = Approve, en
		} else {
			a.ignored = append(a.ignored, en)
		}
	}
	return res
}

// layerStep summarizes one rule layer for the trace. A layer approves only
// when the whole call is approved and it covered a part.
func (e *Engine) layerStep(layer string, parts []part, answers []map[string]*answer, final []Decision, firstLayer []string, overall Decision) Step {
	s := Step{Resolver: layer, Priority: layerPriority[layer], Decision: Pass}
	var reasons, ignored []string
	decided := false
	for i, p := range parts {
		a := answers[i][layer]
		if a.decision == Deny {
			s.Decision = Deny
			reasons = append(reasons, fmt.Sprintf("%s denied by %s", p.label, describe(a.entry)))
			s.setRule(a.entry)
			decided = true
			continue
		}
		for _, ig := range a.ignored {
			ignored = append(ignored, fmt.Sprintf("%s would approve %s, but %s", describe(ig), p.label, untrustedWhy(ig.origin)))
		}
		if p.denyOnly || a.decision == Pass {
			continue
		}
		first := firstLayer[i] == layer
		switch a.decision {
		case RequireApproval:
			why := a.why
			if why == "" {
				why = "ask rule " + describe(a.entry)
			}
			if first && s.Decision != Deny {
				s.Decision = RequireApproval
				s.setRule(a.entry)
				decided = true
			}
			reasons = append(reasons, fmt.Sprintf("%s: %s", p.label, why))
		case Approve:
			reasons = append(reasons, fmt.Sprintf("%s allowed by %s", p.label, describe(a.entry)))
			if first && overall == Approve && s.Decision == Pass {
				s.Decision = Approve
				s.setRule(a.entry)
			}
		}
	}
	if s.Decision == Pass && !decided {
		var uncovered []string
		for i, p := range parts {
			if !p.denyOnly && final[i] == Pass {
				uncovered = append(uncovered, p.label)
			}
		}
		if len(uncovered) > 0 && layer == layerUser {
			reasons = append(reasons, "no rule covers "+strings.Join(uncovered, ", "))
		}
	}
	reasons = append(reasons, e.removalNotes(layer, parts)...)
	if len(reasons) == 0 {
		reasons = append(reasons, "no matching rule")
	}
	s.Reason = strings.Join(reasons, "; ")
	if len(ignored) > 0 {
		s.Ignored = strings.Join(dedupe(ignored), "; ")
	}
	return s
}

func (s *Step) setRule(en *entry) {
	if en == nil || s.Rule != "" {
		return
	}
	s.Rule = en.rule.text
	if en.preset != "" {
		s.Rule = en.rule.text + " (from " + en.preset + ")"
	}
	s.File, s.Line = en.origin.file, en.origin.line
}

func describe(en *entry) string {
	if en == nil {
		return "a rule"
	}
	d := en.rule.text
	if en.preset != "" {
		d += " (from " + en.preset + ")"
	}
	d += " at " + en.origin.where()
	if en.reason != "" {
		d += " — " + en.reason
	}
	return d
}

func untrustedWhy(o origin) string {
	return fmt.Sprintf("the %s is not trusted (add the workspace to trust.workspaces in the user config)", o.layer)
}

// removalNotes mention entries this layer removed that concern the call's tools.
func (e *Engine) removalNotes(layer string, parts []part) []string {
	var out []string
	tools := map[string]bool{}
	for _, p := range parts {
		tools[p.tool] = true
	}
	for _, r := range e.rules.removed {
		if r.by.layer != layer {
			continue
		}
		tool, _, _ := strings.Cut(r.key, "(")
		if tools[tool] {
			what := "removed " + r.key
			if r.denied {
				what = "removed deny " + r.key
			}
			out = append(out, fmt.Sprintf("%s at %s", what, r.by.where()))
		}
	}
	for _, r := range e.rules.ignoredRemovals {
		if r.by.layer == layer {
			out = append(out, fmt.Sprintf("ignored removal of deny %s at %s: %s", r.key, r.by.where(), untrustedWhy(r.by)))
		}
	}
	return dedupe(out)
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
