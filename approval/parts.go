package approval

import (
	"fmt"
	"path"
	"strings"

	"github.com/chatls/chatls/internal/clip"
	"github.com/chatls/chatls/internal/fspath"
)

type partKind int

const (
	partCommand partKind = iota // one simple command of a bash call
	partWrite                   // a file a bash command writes
	partPath                    // read/write/edit/grep/find/ls
	partOther                   // any other tool
)

// part is one thing a call does that rules must cover. A bash call has one
// part per command and per written file; other calls have one part.
type part struct {
	kind     partKind
	label    string
	tool     string
	cmd      *shellCommand
	path     string // canonical, for partWrite and partPath
	input    map[string]any
	builtin  string // covered without a rule (cd inside the workspace)
	blocked  string // can't be approved by rules: why
	secret   string // sensitive-path token
	denyOnly bool   // nested: only deny rules look at it
}

// parts splits a call into parts; opaque lists reasons the whole call can
// never be auto-approved.
func (e *Engine) parts(call Call, env callEnv) (parts []part, opaque []string) {
	switch {
	case call.Tool == "bash":
		return e.bashParts(call, env)
	case transferPaths[call.Tool] != [2]string{}:
		keys := transferPaths[call.Tool]
		src := e.pathPart(call, keys[0], env)
		if call.Tool == "copy" && src.blocked == "" {
			src.tool, src.label = "read", "copy reads "+src.path // only read: read rules cover it
		}
		return []part{src, e.pathPart(call, keys[1], env)}, nil
	case pathTools[call.Tool]:
		return []part{e.pathPart(call, "path", env)}, nil
	}
	return []part{{kind: partOther, tool: call.Tool, input: call.Input, label: call.Tool}}, nil
}

// pathPart is the part of a file tool's path under key.
func (e *Engine) pathPart(call Call, key string, env callEnv) part {
	p := part{kind: partPath, tool: call.Tool, input: call.Input}
	raw, ok := call.Input[key].(string)
	if !ok || raw == "" {
		if call.Tool == "grep" || call.Tool == "find" || call.Tool == "ls" {
			raw, ok = ".", true
		}
	}
	if !ok {
		p.label = call.Tool
		p.blocked = "the call has no " + key
		return p
	}
	p.path = e.canon(raw, env.docDir, e.home)
	p.label = fmt.Sprintf("%s %s", call.Tool, p.path)
	sensitive := e.sensitive
	if writeTools[call.Tool] {
		sensitive = e.writeSensitive
	}
	p.secret = sensitive(p.path)
	if p.secret == "" {
		// The path as written counts too: a link named .env is still a secret's name.
		p.secret = sensitive(raw)
	}
	if p.secret == "" && (call.Tool == "grep" || call.Tool == "find") {
		// A search glob that can match a sensitive name asks (the tool
		// skips such files unless a rule names them, so it would find nothing).
		for _, k := range []string{"glob", "pattern"} {
			if g, ok := call.Input[k].(string); ok && (k == "glob" || call.Tool == "find") {
				if t := patternSecret(g, false); t != "" {
					p.secret = t
					break
				}
			}
		}
	}
	return p
}

func (e *Engine) bashParts(call Call, env callEnv) ([]part, []string) {
	cmd, ok := call.Input["command"].(string)
	if !ok {
		return nil, []string{"the bash call has no command string"}
	}
	reading, why := bashReading(cmd)
	a := analyzeShell(reading, env.bashDir, e.home)
	if why != "" {
		a.opaque = append(a.opaque, why)
	}
	parts := e.analysisParts(a, env, false)
	// Other ways bash may read the text only matter for deny rules.
	if alt := blankReading(reading); alt != "" {
		parts = append(parts, e.analysisParts(analyzeShell(alt, env.bashDir, e.home), env, true)...)
	}
	if len(a.opaque) > 0 {
		// The analysis is incomplete: deny rules also look at every
		// command the text could run.
		for _, words := range e.scanForDeny(reading) {
			c := &shellCommand{words: words, denyForms: [][]word{words}, nested: true, cwd: env.bashDir}
			parts = append(parts, part{kind: partCommand, tool: "bash", cmd: c, label: commandLabel(words), denyOnly: true})
		}
	}
	return parts, a.opaque
}

// analysisParts turns an analysis into parts; denyOnly makes every part one
// only deny rules look at (another reading of the same text).
func (e *Engine) analysisParts(a *shellAnalysis, env callEnv, denyOnly bool) []part {
	var parts []part
	canon := map[string]string{env.bashDir: env.bashDir}
	for i := range a.commands {
		c := &a.commands[i]
		p := part{kind: partCommand, tool: "bash", cmd: c, label: commandLabel(c.words), denyOnly: c.nested || denyOnly}
		if c.isCd {
			target := ""
			if c.cd != "" {
				target = e.canon(c.cd, "/", e.home)
			}
			if target != "" && (fspath.Within(target, env.root) || fspath.Within(target, env.docDir)) {
				p.builtin = "cd inside the workspace"
			}
		} else if why := harmlessBuiltin(c.words); why != "" {
			p.builtin = why
		}
		if !c.nested {
			p.secret, p.path = e.commandSecret(c, canon)
		}
		parts = append(parts, p)
	}
	for _, w := range a.writes {
		p := part{kind: partWrite, tool: "write", denyOnly: w.nested || denyOnly}
		if w.reason != "" {
			p.blocked = fmt.Sprintf("%s writes a file: %s", w.via, w.reason)
			p.label = "write via " + w.via
		} else {
			p.path = e.canon(w.path, "/", e.home)
			p.label = fmt.Sprintf("write %s (%s)", p.path, w.via)
			p.secret = e.writeSensitive(p.path)
			if p.secret == "" {
				p.secret = e.writeSensitive(w.path)
			}
		}
		parts = append(parts, p)
	}
	return parts
}

// scanForDeny is denyScan's candidates that a bash deny rule could match
// (their name matches one), so that a long text costs little.
func (e *Engine) scanForDeny(text string) [][]word {
	var names []string
	for i := range e.rules.deny {
		r := e.rules.deny[i].rule
		switch {
		case !r.toolMatches("bash"):
		case r.bare || r.cmd == nil:
			return nil // bash is denied whole: nothing to look for
		default:
			names = append(names, r.cmd.name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	var out [][]word
	for _, words := range denyScan(text) {
		for _, n := range names {
			if wildcard(n, words[0].text) || wildcard(n, path.Base(words[0].text)) {
				out = append(out, words)
				break
			}
		}
	}
	return out
}

// harmlessBuiltin covers shell builtins with no effect outside the shell.
// Their problem cases (declare -i, set -k, wait -p a[…]) are opaque: see
// shellWalker.builtin and decl.
func harmlessBuiltin(words []word) string {
	if len(words) == 0 || words[0].dyn {
		return ""
	}
	switch words[0].text {
	case "true", "false", ":", "exit", "return", "export", "local", "declare", "typeset", "readonly", "wait":
		return "shell builtin without side effects"
	case "pwd":
		for _, w := range words[1:] {
			if w.dyn || w.text != "-L" && w.text != "-P" {
				return ""
			}
		}
		return "shell builtin without side effects"
	case "set":
		if setProblem(words[1:]) == "" {
			return "shell option"
		}
	case "shopt":
		if shoptProblem(words[1:]) == "" {
			return "shell option"
		}
	}
	return ""
}

func commandLabel(words []word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = displayWord(w)
	}
	return "`" + clip.Runes(strings.Join(parts, " "), 78) + "`"
}

// allowMatches reports whether an approve/ask entry covers the part.
func (e *Engine) allowMatches(r *rule, p *part, env callEnv) bool {
	switch p.kind {
	case partCommand:
		if !r.toolMatches("bash") {
			return false
		}
		if p.secret != "" && (r.bare || !strings.Contains(strings.ToLower(r.pattern), p.secret)) {
			return false // a sensitive path: only a rule that names it
		}
		return r.bare || r.cmd != nil && r.cmd.allowMatch(p.cmd.words)
	case partWrite, partPath:
		if !r.toolMatches(p.tool) || p.path == "" {
			return false
		}
		if dangerousTools[p.tool] && r.tool != p.tool {
			return false // a wildcard does not name a dangerous tool
		}
		if r.bare {
			// Presets and bare names: only inside the workspace / writable set, never secrets.
			dirs := env.read
			if writeTools[p.tool] {
				dirs = env.write
			}
			return p.secret == "" && fspath.WithinAny(p.path, dirs)
		}
		if r.path == nil || !r.path.match(p.path, env.root) {
			return false
		}
		return p.secret == "" || r.path.names(p.secret)
	}
	if dangerousTools[p.tool] && r.tool != p.tool {
		return false
	}
	if p.tool == "git_branch" && p.input["create"] == true {
		// Creating a branch asks unless a rule names it: git_branch(create).
		return r.tool == p.tool && r.pattern == "create"
	}
	return r.toolMatches(p.tool) && (r.bare || r.matchInput(p.tool, p.input, false))
}

// denyMatches reports whether a deny entry hits the part; maybe when it
// could once variables are filled in.
func (e *Engine) denyMatches(r *rule, p *part, env callEnv) denyResult {
	switch p.kind {
	case partCommand:
		if r.path != nil && r.sameEffect("read") {
			return e.commandReadsMatch(r, p.cmd, env)
		}
		if !r.toolMatches("bash") {
			return denyNo
		}
		if r.bare {
			return denyYes
		}
		if r.cmd == nil {
			return denyNo
		}
		best := denyNo
		for _, f := range p.cmd.denyForms {
			best = max(best, r.cmd.denyMatch(f))
		}
		return best
	case partWrite:
		if !r.sameEffect("write") {
			return denyNo
		}
		if r.bare {
			return denyYes
		}
		if p.path == "" {
			if r.path != nil {
				return denyMaybe
			}
			return denyNo
		}
		if r.path != nil && r.path.match(p.path, env.root) {
			return denyYes
		}
		return denyNo
	case partPath:
		if !r.sameEffect(p.tool) {
			return denyNo
		}
		if r.bare || r.path != nil && p.path != "" && r.path.match(p.path, env.root) {
			return denyYes
		}
		return denyNo
	}
	if r.toolMatches(p.tool) && (r.bare || r.matchInput(p.tool, p.input, true)) {
		return denyYes
	}
	return denyNo
}

// matchInput matches TOOL(key=glob) or TOOL(glob) against a call's input:
// without a key, the first string among the usual keys is used. A URL
// (web_fetch's url) is matched parsed: urlRuleMatch.
func (r *rule) matchInput(tool string, input map[string]any, deny bool) bool {
	match := func(k, s string) bool {
		if k == "url" && tool == "web_fetch" {
			return urlRuleMatch(r.glob, s, deny)
		}
		return wildcard(r.glob, s)
	}
	if r.key != "" {
		s, ok := input[r.key].(string)
		return ok && match(r.key, s)
	}
	for _, k := range []string{"command", "path", "url", "expression", "query", "pattern", "name"} {
		if s, ok := input[k].(string); ok {
			return match(k, s)
		}
	}
	return false
}
