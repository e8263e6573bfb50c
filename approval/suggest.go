package approval

import (
	"path/filepath"
	"strings"

	"github.com/chatls/chatls/internal/fspath"
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

// leadingOptions are global options a subcommand tool may get before its
// subcommand and that keep the suggestion narrow (git -C DIR status →
// bash(git -C DIR status *)); the value says whether a word follows.
var leadingOptions = map[string]map[string]bool{
	"git":  {"-C": true, "--no-pager": false, "-P": false, "--no-optional-locks": false},
	"go":   {"-C": true},
	"make": {"-C": true, "-s": false, "-k": false},
}

// riskySubcommands run arbitrary packages or code: the exact command is
// suggested for them (npm exec x, npx-like forms).
var riskySubcommands = map[string]map[string]bool{
	"npm": {"exec": true, "x": true}, "pnpm": {"dlx": true, "exec": true}, "yarn": {"dlx": true, "exec": true},
	"bun": {"x": true}, "deno": {"eval": true}, "uv": {"run": true, "tool": true}, "pip": {"install": true},
	"gh": {"extension": true}, "nix": {"run": true, "shell": true},
	"docker": {"run": true, "exec": true}, "podman": {"run": true, "exec": true}, "kubectl": {"exec": true, "run": true},
}

// riskyCommands get the exact command instead of `NAME *`: a wildcard over
// them would approve deleting or overwriting anything, or running any code.
var riskyCommands = map[string]bool{
	"rm": true, "mv": true, "cp": true, "dd": true, "chmod": true, "chown": true, "sudo": true,
	"doas": true, "kill": true, "pkill": true, "killall": true, "shred": true, "truncate": true,
	"curl": true, "wget": true, "ssh": true, "scp": true, "rsync": true, "tee": true, "sed": true,
	"find": true, "xargs": true, "env": true, "eval": true, "exec": true, "ln": true, "install": true,
	"tar": true, "unzip": true, "chgrp": true, "mkfs": true, "mount": true, "crontab": true,
}

// interpreters run whatever code they are given: only the exact command
// (the code or script named in it) is ever suggested.
var interpreters = map[string]bool{
	"python": true, "python2": true, "python3": true, "node": true, "nodejs": true, "perl": true,
	"ruby": true, "php": true, "lua": true, "luajit": true, "awk": true, "gawk": true, "mawk": true,
	"nawk": true, "tclsh": true, "Rscript": true, "R": true, "osascript": true, "pwsh": true,
	"powershell": true, "npx": true, "pnpx": true, "bunx": true, "uvx": true, "pipx": true,
	"java": true, "jshell": true, "groovy": true, "scala": true, "julia": true, "erl": true,
	"elixir": true, "ghci": true, "runghc": true, "vim": true, "nvim": true, "vi": true, "emacs": true,
	"gdb": true, "expect": true,
}

// SuggestRule proposes the narrowest rule for "Always allow" that approves
// the whole call: a subcommand with a trailing * for bash (never
// bash(go *) or bash), the exact command for interpreters and dangerous
// programs, a directory glob inside the workspace or the exact path outside
// it for file tools, the tool name otherwise. "" when no single rule would
// approve the call, or when it should not be made easier to approve
// (substitutions, shells, sensitive paths).
func SuggestRule(call Call) string {
	switch {
	case call.Tool == "bash":
		return suggestBash(call)
	case transferPaths[call.Tool] != [2]string{}:
		return "" // two paths: no single narrow rule
	case pathTools[call.Tool]:
		return suggestPath(call)
	}
	return call.Tool
}

func suggestBash(call Call) string {
	cmd, _ := call.Input["command"].(string)
	dir := call.WorkspaceRoot
	if call.DocPath != "" {
		dir = filepath.Dir(call.DocPath)
	}
	a := analyzeShell(cmd, dir, "")
	if len(a.opaque) > 0 {
		return ""
	}
	// Writes the rule would not cover (outside the workspace) still ask.
	root := call.WorkspaceRoot
	if root == "" {
		root = dir
	}
	for _, w := range a.writes {
		if w.nested {
			continue
		}
		if w.reason != "" || root == "" || !fspath.Within(canonicalPath(w.path, "/", ""), canonicalPath(root, "/", "")) {
			return ""
		}
	}
	rule := ""
	for _, c := range a.commands {
		if c.nested || len(c.words) == 0 || harmlessBuiltin(c.words) != "" {
			continue
		}
		if c.isCd && c.cd != "" && root != "" && fspath.Within(canonicalPath(c.cd, "/", ""), canonicalPath(root, "/", "")) {
			continue // cd inside the workspace needs no rule
		}
		r := commandRule(c.words)
		if r == "" || rule != "" && r != rule {
			return "" // one rule must cover the whole call
		}
		rule = r
	}
	if rule == "" {
		return ""
	}
	return "bash(" + rule + ")"
}

// commandRule is the narrowest safe pattern for one command ("" if none).
func commandRule(words []word) string {
	name := words[0].text
	if words[0].dyn || words[0].glob {
		return ""
	}
	base := filepath.Base(name)
	if standardBinDirs[filepath.Dir(name)] {
		name = base
	} else if strings.Contains(name, "/") {
		// ./script.sh, /tmp/tool: the program can be rewritten; exact only.
		return exactCommand(words)
	}
	args := words[1:]
	if riskyCommands[base] || shells[base] || interpreters[base] {
		return exactCommand(words)
	}
	if !subcommandTools[base] {
		return quoteRuleWord(name) + " *"
	}
	// Keep known global options and their values, then the subcommand.
	prefix := []string{quoteRuleWord(name)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn || a.glob {
			return ""
		}
		if takesValue, ok := leadingOptions[base][a.text]; ok {
			prefix = append(prefix, quoteRuleWord(a.text))
			if takesValue {
				if i+1 >= len(args) || args[i+1].dyn || args[i+1].glob {
					return ""
				}
				i++
				prefix = append(prefix, quoteRuleWord(args[i].text))
			}
			continue
		}
		if !isSubcommand(a.text) || riskySubcommands[base][a.text] {
			return exactCommand(words)
		}
		return strings.Join(append(prefix, a.text, "*"), " ")
	}
	return exactCommand(words) // no subcommand: `go`, `make`
}

// exactCommand is the command word for word, or "" when a word is not
// known before it runs.
func exactCommand(words []word) string {
	name := words[0].text
	if standardBinDirs[filepath.Dir(name)] {
		name = filepath.Base(name)
	}
	parts := []string{quoteRuleWord(name)}
	for _, w := range words[1:] {
		if w.dyn || w.glob || w.text == "*" {
			return ""
		}
		parts = append(parts, quoteRuleWord(w.text))
	}
	return strings.Join(parts, " ")
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
	return s[0] != '-'
}

// quoteRuleWord quotes a word that a rule pattern would otherwise split or glob.
func quoteRuleWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// suggestPath: inside the workspace the file's directory as DIR/** (or the
// file itself at the root); outside it only the exact path — never a glob
// over /etc or a home directory. Sensitive paths get no suggestion.
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
	if sensitiveToken(p) != "" || sensitiveToken(raw) != "" {
		return ""
	}
	root := call.WorkspaceRoot
	if root != "" {
		root = canonicalPath(root, "/", home)
	}
	dir := p
	if call.Tool != "ls" && call.Tool != "find" && call.Tool != "grep" {
		dir = filepath.Dir(p)
	}
	if root != "" && fspath.Within(dir, root) {
		rel, _ := filepath.Rel(root, dir)
		if rel == "." {
			if dir == p {
				return call.Tool + "(*)"
			}
			return call.Tool + "(" + quoteGlobChars(filepath.Base(p)) + ")"
		}
		return call.Tool + "(" + quoteGlobChars(filepath.ToSlash(rel)) + "/**)"
	}
	if strings.ContainsAny(p, "*?[]{}\\") || strings.ContainsAny(p, ")") {
		return ""
	}
	return call.Tool + "(" + p + ")"
}

// quoteGlobChars escapes glob syntax in a literal path segment.
func quoteGlobChars(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune("*?[]{}\\", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
