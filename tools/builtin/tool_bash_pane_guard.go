package builtin

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// paneBreaker says why command would break the shared tmux pane's shell
// for every command after it ("" when it would not): commands there are
// sourced by the pane's interactive shell, so `exit`, `exec PROGRAM`,
// `set -e` (any failure would end the shell), `return` (ends the sourced
// script before its end marker) and `logout` act on that shell. In a
// subshell, a command substitution or a child shell they are harmless.
func paneBreaker(command string) string {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return "" // bash will say what is wrong with it
	}
	why := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.CallExpr:
			why = breakingCall(n)
		}
		return true
	})
	return why
}

func breakingCall(c *syntax.CallExpr) string {
	if len(c.Args) == 0 {
		return ""
	}
	name := c.Args[0].Lit()
	args := make([]string, 0, len(c.Args)-1)
	for _, a := range c.Args[1:] {
		args = append(args, a.Lit())
	}
	switch name {
	case "exit", "logout":
		return "`" + name + "` would end the pane's shell"
	case "return":
		return "`return` would end the command before chatls can read its result"
	case "exec":
		for _, a := range args {
			if a != "" && !strings.HasPrefix(a, "-") {
				return "`exec " + a + "` would replace the pane's shell"
			}
		}
	case "set", "shopt":
		for i, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "e") && name == "set" {
				return "`set " + a + "` (errexit) would end the pane's shell at the first failing command"
			}
			if a == "-o" && i+1 < len(args) && args[i+1] == "errexit" {
				return "`set -o errexit` would end the pane's shell at the first failing command"
			}
		}
	}
	return ""
}
