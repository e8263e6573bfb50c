package approval

import (
	"os"
	"strconv"
	"strings"
)

// Summary is the decision word and what made it, in Markdown, for hovers:
// "deny — rule `bash(rm *)` (~/work/.chatls.toml:3)", or the reason when no
// rule did ("require_approval — no rule approves this call, so it asks you").
func (v Verdict) Summary() string {
	line := string(v.Decision)
	var decider *Step
	for i := range v.Steps {
		if v.Steps[i].Decision == v.Decision {
			decider = &v.Steps[i] // the first with the final word; any deny wins
			break
		}
	}
	switch {
	case decider != nil && decider.Rule != "":
		line += " — rule " + inlineCode(decider.Rule)
		if decider.File != "" {
			loc := homeRelative(decider.File)
			if decider.Line > 0 {
				loc += ":" + strconv.Itoa(decider.Line)
			}
			line += " (" + loc + ")"
		}
	case decider != nil && decider.Reason != "":
		line += " — " + strings.Join(strings.Fields(decider.Reason), " ")
	case v.Reason != "":
		line += " — " + strings.Join(strings.Fields(v.Reason), " ")
	}
	return line
}

// inlineCode wraps s in enough backticks for Markdown.
func inlineCode(s string) string {
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// homeRelative shows a path under the home directory as ~/….
func homeRelative(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(home, "/")+"/"); ok {
		return "~/" + rest
	}
	return path
}

// SandboxUnavailable is the decision on a call when sandbox.enabled is set
// but bubblewrap cannot run (problem says why): a bash call the policy
// approved assuming the sandbox asks instead (SPEC §5), and the trace says
// so. The user may still approve it; it then runs unsandboxed.
func (v Verdict) SandboxUnavailable(tool, problem string) Verdict {
	if problem == "" || tool != "bash" || v.Decision != Approve {
		return v
	}
	v.Steps = append(v.Steps, Step{Resolver: "sandbox", Priority: 25, Decision: RequireApproval,
		Reason: "sandbox.enabled is set but bubblewrap cannot run (" + problem + "); asking instead — if you approve, the call runs unsandboxed"})
	v.Decision, v.Reason = RequireApproval, "the sandbox is unavailable"
	return v
}
