package approval

import (
	"fmt"
	"strings"

	"github.com/chatls/chatls/internal/clip"
)

// Format renders the trace for people: the decision word alone on the first
// line (`chatls policy check` scripts read it), then one line per step.
func (v Verdict) Format() string {
	var b strings.Builder
	b.WriteString(string(v.Decision))
	b.WriteByte('\n')
	for _, s := range v.Steps {
		b.WriteString(s.Format())
		b.WriteByte('\n')
	}
	return b.String()
}

// Format renders one step on one line.
func (s Step) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-16s %5d  %-16s", s.Resolver, s.Priority, s.Decision)
	if s.Reason != "" {
		b.WriteString(" " + clip.Spaces(s.Reason))
	}
	if s.Rule != "" && !strings.Contains(s.Reason, s.Rule) {
		b.WriteString(" [rule " + s.Rule)
		if s.File != "" {
			b.WriteString(" at " + s.File)
			if s.Line > 0 {
				fmt.Fprintf(&b, ":%d", s.Line)
			}
		}
		b.WriteString("]")
	}
	if s.Ignored != "" {
		b.WriteString(" (ignored: " + clip.Spaces(s.Ignored) + ")")
	}
	return strings.TrimRight(b.String(), " ")
}
