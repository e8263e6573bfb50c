package approval

import (
	"fmt"
	"path/filepath"

	"github.com/chatls/chatls/config"
)

// exampleRoot stands in for the workspace root when checking path examples.
const exampleRoot = "/chatls-example-root"

// checkExamples verifies a [[tools.rules]] table's match/notMatch examples,
// so a rule that does not mean what its author thinks fails when it loads.
func checkExamples(r *rule, cfg config.Rule, home string) error {
	// An ask rule narrows like a deny rule and matches as broadly.
	deny := cfg.Decision == "deny" || cfg.Decision == "ask"
	for _, ex := range cfg.Match {
		if !exampleMatches(r, ex, deny, home) {
			return fmt.Errorf("rule %q: example %q must match but does not (fix the rule or the example)", r.text, ex)
		}
	}
	for _, ex := range cfg.NotMatch {
		if exampleMatches(r, ex, deny, home) {
			return fmt.Errorf("rule %q: notMatch example %q matches (narrow the rule or fix the example)", r.text, ex)
		}
	}
	return nil
}

func exampleMatches(r *rule, ex string, deny bool, home string) bool {
	switch {
	case r.cmd != nil:
		a := analyzeShell(ex, exampleRoot, home)
		n := 0
		for _, c := range a.commands {
			if deny {
				for _, f := range c.denyForms {
					if r.cmd.denyMatch(f) == denyYes {
						return true
					}
				}
				continue
			}
			if c.nested {
				continue
			}
			if !r.cmd.allowMatch(c.words) {
				return false
			}
			n++
		}
		return !deny && n > 0 && len(a.opaque) == 0
	case r.path != nil:
		p := ex
		if !filepath.IsAbs(p) {
			p = filepath.Join(exampleRoot, p)
		}
		return r.path.match(filepath.Clean(p), exampleRoot)
	case r.bare:
		return true
	case r.tool == "web_fetch" && (r.key == "" || r.key == "url"):
		return urlRuleMatch(r.glob, ex, deny)
	}
	return wildcard(r.glob, ex)
}
