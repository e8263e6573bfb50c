package approval

import (
	"fmt"
	"strings"
)

// decisionWords say a decision as a user reads it.
var decisionWords = map[Decision]string{
	Approve:         "runs without asking",
	RequireApproval: "asks for your approval",
	Deny:            "is denied",
}

// Markdown is the decision as a document an editor renders (chatls.explain):
// what happens to the call and why, the call's input, then the same trace
// `chatls policy check` prints.
func (v Verdict) Markdown(tool, id, input string) string {
	var b strings.Builder
	what := decisionWords[v.Decision]
	if what == "" {
		what = "is " + string(v.Decision)
	}
	fmt.Fprintf(&b, "# `%s` (`%s`) %s\n\n", tool, id, what)
	if v.Reason != "" {
		fmt.Fprintf(&b, "**Why:** %s\n\n", v.Reason)
	}
	if input != "" {
		b.WriteString("## The call\n\n```json\n" + strings.TrimRight(input, "\n") + "\n```\n\n")
	}
	b.WriteString("## How it was decided\n\nEach source in priority order (the first decision wins; any deny wins):\n\n")
	b.WriteString("```text\n" + v.Format() + "```\n")
	return b.String()
}
