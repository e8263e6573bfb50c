package approval

import (
	"errors"
	"fmt"
	"strings"
)

var errBadGlob = errors.New("invalid glob pattern")

// pathTools take a path and are matched with globs; the key holds it.
var pathTools = map[string]bool{"read": true, "write": true, "edit": true, "grep": true, "find": true, "ls": true,
	"mkdir": true, "delete": true, "copy": true, "move": true}

// writeTools change files: presets approve them only inside the writable set.
var writeTools = map[string]bool{"write": true, "edit": true, "mkdir": true, "delete": true, "copy": true, "move": true}

// dangerousTools are approved only by a rule that names them — never by a
// preset, a wildcard or the sandbox (SPEC §5).
var dangerousTools = map[string]bool{"delete": true, "move": true, "git_commit": true, "git_push": true}

// transferPaths are the path keys of the tools that touch two paths; a
// copy only reads its source.
var transferPaths = map[string][2]string{"copy": {"source", "destination"}, "move": {"source", "destination"}}

// readTools only look at files.
var readTools = map[string]bool{"read": true, "grep": true, "find": true, "ls": true}

// sameEffect says whether a deny rule written for one path tool applies
// to a call of tool: path deny rules apply by effect (SPEC §4) — a rule
// denying reads of private/** stops grep and ls in it, one denying writes
// to secrets/** stops edit.
func (r *rule) sameEffect(tool string) bool {
	if r.toolMatches(tool) {
		return true
	}
	group := readTools
	if writeTools[tool] {
		group = writeTools
	} else if !readTools[tool] {
		return false
	}
	for t := range group {
		if r.toolMatches(t) {
			return true
		}
	}
	return false
}

// rule is one compiled `TOOL` or `TOOL(PATTERN)`.
type rule struct {
	text    string
	tool    string // may contain * (slack:*)
	pattern string
	bare    bool
	cmd     *cmdPattern
	path    *pathPattern
	key     string // TOOL(key=glob) for other tools
	glob    string
}

// parseRule compiles a rule; errors say what is wrong and how to write it.
func parseRule(text, home string) (*rule, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("empty rule")
	}
	if strings.HasPrefix(text, "$") {
		return nil, fmt.Errorf("%q is a preset name, not a rule", text)
	}
	r := &rule{text: text}
	open := strings.IndexByte(text, '(')
	if open < 0 {
		if strings.ContainsAny(text, ") \t") {
			return nil, fmt.Errorf("rule %q: write TOOL or TOOL(PATTERN), e.g. bash(go test *)", text)
		}
		r.tool, r.bare = CanonicalTool(text), true
		return r, validTool(r)
	}
	if !strings.HasSuffix(text, ")") {
		return nil, fmt.Errorf("rule %q: missing closing parenthesis; write TOOL(PATTERN)", text)
	}
	r.tool = CanonicalTool(strings.TrimSpace(text[:open]))
	r.pattern = strings.TrimSpace(text[open+1 : len(text)-1])
	if err := validTool(r); err != nil {
		return nil, err
	}
	if r.pattern == "" {
		return nil, fmt.Errorf("rule %q: empty pattern; write %s alone to match every call", text, r.tool)
	}
	var err error
	switch {
	case r.tool == "bash":
		r.cmd, err = compileCmdPattern(r.pattern)
	case pathTools[r.tool]:
		r.path, err = compilePathPattern(r.pattern, home)
		if err != nil {
			err = fmt.Errorf("pattern %q is not a valid glob (see docs/policy.md, Path patterns)", r.pattern)
		}
	default:
		if k, g, ok := strings.Cut(r.pattern, "="); ok && isVarName(k) {
			r.key, r.glob = k, g
		} else {
			r.glob = r.pattern
		}
	}
	if err != nil {
		return nil, fmt.Errorf("rule %q: %w", text, err)
	}
	return r, nil
}

func validTool(r *rule) error {
	if r.tool == "" {
		return fmt.Errorf("rule %q: missing tool name", r.text)
	}
	for _, c := range r.tool {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-:.*", c)) {
			return fmt.Errorf("rule %q: tool name %q has the character %q; tool names are letters, digits, _ - . and server:tool for MCP", r.text, r.tool, c)
		}
	}
	return nil
}

// toolMatches compares a tool name with the rule's, where * matches any run
// of characters (slack:* matches every tool of the slack MCP server).
func (r *rule) toolMatches(tool string) bool {
	if !strings.Contains(r.tool, "*") {
		return r.tool == tool
	}
	return wildcard(r.tool, tool)
}

// wildcard matches s against p where * is any run of characters (also empty).
func wildcard(p, s string) bool {
	// Iterative matcher with backtracking on the last star: linear enough
	// for rule-sized inputs and never recursive.
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
