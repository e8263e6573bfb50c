package approval

import (
	"path/filepath"
	"strings"
)

// subcommandTools take a subcommand as first argument, so the narrowest
// useful rule keeps it: go test ./pkg/... → bash(go test *).
var subcommandTools = map[string]bool{
	"go": true, "git": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true,
	"cargo": true, "docker": true, "podman": true, "kubectl": true, "helm": true, "make": true,
	"pip": true, "uv": true, "poetry": true, "gh": true, "terraform": true, "mvn": true,
	"gradle": true, "dotnet": true, "rustup": true, "brew": true, "just": true, "task": true,
	"bundle": true, "rake": true, "mix": true, "swift": true, "zig": true, "nix": true,
}

// riskyCommands get an exact rule instead of `NAME *`: a wildcard over them
// would approve deleting or overwriting anything.
var riskyCommands = map[string]bool{
	"rm": true, "mv": true, "cp": true, "dd": true, "chmod": true, "chown": true, "sudo": true,
	"doas": true, "kill": true, "pkill": true, "killall": true, "shred": true, "truncate": true,
	"curl": true, "wget": true, "ssh": true, "scp": true, "rsync": true, "tee": true, "sed": true,
	"find": true, "xargs": true, "env": true, "eval": true, "exec": true,
}

// SuggestRule proposes the narrowest useful rule for "Always allow": a
// subcommand with a trailing * for bash (never bash(go *) or bash), a
// directory glob for file tools, the tool name otherwise. "" when no rule
// would help (substitutions, shells, unparseable commands).
func SuggestRule(call Call) string {
	switch {
	case call.Tool == "bash":
		return suggestBash(call)
	case pathTools[call.Tool]:
		return suggestPath(call)
	}
	return call.Tool
}

func suggestBash(call Call) string {
	cmd, _ := call.Input["command"].(string)
	dir := ""
	if call.DocPath != "" {
		dir = filepath.Dir(call.DocPath)
	}
	a := analyzeShell(cmd, dir, "")
	if len(a.opaque) > 0 {
		return ""
	}
	for _, c := range a.commands {
		if c.nested || c.isCd || harmlessBuiltin(c.words) != "" || len(c.words) == 0 {
			continue
		}
		return "bash(" + commandRule(c.words) + ")"
	}
	return ""
}

func commandRule(words []word) string {
	name := words[0].text
	base := filepath.Base(name)
	if standardBinDirs[filepath.Dir(name)] {
		name = base
	}
	args := words[1:]
	if riskyCommands[base] || shells[base] {
		parts := []string{quoteRuleWord(name)}
		for _, w := range args {
			if w.dyn {
				parts = append(parts, "*")
				break
			}
			parts = append(parts, quoteRuleWord(w.text))
		}
		return strings.Join(parts, " ")
	}
	if subcommandTools[base] {
		for _, w := range args {
			if w.dyn || strings.HasPrefix(w.text, "-") {
				break
			}
			if isSubcommand(w.text) {
				return name + " " + w.text + " *"
			}
			break
		}
	}
	return name + " *"
}

func isSubcommand(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// quoteRuleWord quotes a word that a rule pattern would otherwise split or glob.
func quoteRuleWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func suggestPath(call Call) string {
	raw, _ := call.Input["path"].(string)
	if raw == "" {
		raw = "."
	}
	home := ""
	base := call.WorkspaceRoot
	if call.DocPath != "" {
		base = filepath.Dir(call.DocPath)
	}
	if base == "" {
		base = "/"
	}
	p := canonicalPath(raw, base, home)
	root := call.WorkspaceRoot
	if root != "" {
		root = canonicalPath(root, "/", home)
	}
	dir := p
	if call.Tool != "ls" && call.Tool != "find" && call.Tool != "grep" {
		dir = filepath.Dir(p)
	}
	if root != "" && within(dir, root) {
		rel, _ := filepath.Rel(root, dir)
		if rel == "." {
			if dir == p {
				return call.Tool + "(*)"
			}
			return call.Tool + "(" + filepath.Base(p) + ")"
		}
		return call.Tool + "(" + filepath.ToSlash(rel) + "/**)"
	}
	return call.Tool + "(" + dir + "/**)"
}
