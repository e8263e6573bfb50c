package approval

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/chatls/chatls/config"
)

// Every program that decides with this package also loads configuration
// through config.LoadFile / config.DecodeJSON: registering here makes those
// refuse a file whose rules don't compile or whose examples fail, so the
// caller keeps its last good configuration and shows the error, instead of
// loading a file that then fails every decision.
func init() { config.RegisterValidator(ValidateSettings) }

// ValidateSettings compiles every rule of one settings layer (list entries,
// preset members, [[tools.rules]] tables with their decision and match /
// notMatch examples) and checks resolvers. Errors name file:line (file ""
// means the editor's settings). Preset names are not checked here: a
// preset may be defined in another layer.
func ValidateSettings(file string, s config.Settings) error {
	home, _ := os.UserHomeDir()
	var errs []error
	at := func(key, value string, err error) error {
		switch line := s.Line(key, value); {
		case file == "":
			return fmt.Errorf("editor settings: %w", err)
		case line > 0:
			return fmt.Errorf("%s:%d: %w", file, line, err)
		default:
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	list := func(key string, values []string) {
		for _, v := range values {
			if strings.HasPrefix(v, "$") {
				continue
			}
			if _, err := parseRule(v, home); err != nil {
				errs = append(errs, at(key, v, err))
			}
		}
	}
	t := s.Tools
	list("tools.autoApprove", t.AutoApprove)
	list("tools.autoApproveAppend", t.AutoApproveAppend)
	list("tools.deny", t.Deny)
	for name, p := range t.Presets {
		list("tools.presets."+name+".approve", p.Approve)
		list("tools.presets."+name+".deny", p.Deny)
	}
	for _, r := range t.Rules {
		compiled, err := parseRule(r.Rule, home)
		if err != nil {
			errs = append(errs, at("tools.rules", r.Rule, err))
			continue
		}
		switch strings.ToLower(r.Decision) {
		case "approve", "allow", "ask", "require_approval", "deny":
		default:
			errs = append(errs, at("tools.rules", r.Rule, fmt.Errorf("rule %q: decision %q must be approve, ask or deny", r.Rule, r.Decision)))
			continue
		}
		if err := checkExamples(compiled, r, home); err != nil {
			errs = append(errs, at("tools.rules", r.Rule, err))
		}
	}
	for _, r := range s.Resolvers {
		if _, err := newExternalResolver(r); err != nil {
			errs = append(errs, at("resolvers", r.Name, err))
		}
	}
	return errors.Join(errs...)
}
