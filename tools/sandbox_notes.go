package tools

import (
	"regexp"
	"strings"
)

// roLine finds the path in the usual shapes of a refused write:
// "bash: line 1: /etc/x: Read-only file system",
// "touch: cannot touch '/etc/x': Read-only file system",
// "cp: cannot create regular file '/etc/x': Read-only file system".
var roLine = regexp.MustCompile(`(?:'([^'\n]+)'|([^\s:'][^:'\n]*)): Read-only file system`)

// netLine are the messages of a connection the sandbox's empty network
// namespace refused.
var netLine = regexp.MustCompile(`Network is unreachable|Could not resolve host|Temporary failure in name resolution|Name or service not known|connect: Connection refused`)

// AppendSandboxNotes says, after the output of a sandboxed call, which of its
// failures were the sandbox's (SPEC §5): `[sandbox: write to PATH refused]`
// for each read-only path it tried to write (at most five), and one line
// when a connection failed with the network off.
func AppendSandboxNotes(text string, network bool) string {
	var notes []string
	seen := map[string]bool{}
	for _, m := range roLine.FindAllStringSubmatch(text, -1) {
		p := m[1]
		if p == "" {
			p = strings.TrimSpace(m[2])
		}
		if seen[p] || len(seen) == 5 {
			continue
		}
		seen[p] = true
		notes = append(notes, "[sandbox: write to "+p+" refused]")
	}
	if !network && netLine.MatchString(text) {
		notes = append(notes, "[sandbox: the network is off for this call]")
	}
	if len(notes) == 0 {
		return text
	}
	return appendParagraph(text, strings.Join(notes, "\n"))
}
