package approval

import (
	"strings"
)

// Whether a pattern can reach a sensitive file is decided by intersecting
// it with the sensitive name patterns of SPEC §4 (.env*, *credentials*,
// id_rsa*, .ssh, …), never by listing a directory: the files there when
// the command runs are not the ones there now. In bash a wildcard at the
// start of a name does not match its dot (dotglob asks on its own).
//
// requireSpelling keeps ordinary globs usable: an intersection counts only
// when the pattern itself spells part of the sensitive name — a character
// of the name's literal text is matched by a literal, a ? or a bracket
// class, not by a *. So `.e*`, `.[!x]nv`, `?redentials.json`, `*env` (a
// pathspec, where * matches the dot) and `.*` reach a secret; `*.go`,
// `*.json` and `*` do not, although they could match credentials.go:
// there * stands for the whole sensitive name. That is the one known gap,
// documented in docs/policy.md "Globs and pathspecs" (the sandbox masks
// such files by name); false makes every such glob ask.
const requireSpelling = true

// sepNoCredit is a '/' put around a sensitive pattern for a program's
// pattern whose * matches '/': matching it spells nothing of the name.
const sepNoCredit = '\x01'

// sensitivePatterns are SPEC §4's sensitive names as patterns over one path
// component (lower case), with the token a rule must name.
var sensitivePatterns = func() []struct{ pat, token string } {
	out := []struct{ pat, token string }{
		{".env*", ".env"}, {"*credentials*", "credentials"}, {"id_rsa*", "id_rsa"}, {"id_ed25519*", "id_ed25519"},
		{".git", ".git/config"},
	}
	for _, n := range sensitiveNames {
		switch n {
		case ".env", "credentials", "id_rsa", "id_ed25519", ".git":
			continue
		}
		out = append(out, struct{ pat, token string }{n, sensitiveName(n, "", nil)})
	}
	return out
}()

// globElem is one element of a parsed pattern.
type globElem struct {
	kind  byte // 'c' literal, '?' any, '*' any run, '[' class
	c     byte
	neg   bool
	set   [256]bool
	slash bool // ? * [ may match '/' (program patterns such as git pathspecs)
}

func (g *globElem) accepts(c byte) bool {
	switch g.kind {
	case 'c':
		return g.c == c
	case '?', '*':
		return c != '/' || g.slash
	case '[':
		if c == '/' && !g.slash {
			return false
		}
		return g.set[c] != g.neg
	}
	return false
}

// parseGlob parses one pattern (lower-cased): \x escapes, ?, *, [set]
// with ! or ^ negation, ranges and [:class:] (taken as any character).
func parseGlob(p string, slash bool) []globElem {
	var out []globElem
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\\':
			if i+1 < len(p) {
				i++
			}
			out = append(out, globElem{kind: 'c', c: p[i]})
		case '*':
			if len(out) == 0 || out[len(out)-1].kind != '*' {
				out = append(out, globElem{kind: '*', slash: slash})
			}
		case '?':
			out = append(out, globElem{kind: '?', slash: slash})
		case '[':
			e, n, ok := parseClass(p[i:])
			if !ok {
				out = append(out, globElem{kind: 'c', c: c})
				continue
			}
			e.slash = slash
			out = append(out, e)
			i += n - 1
		default:
			out = append(out, globElem{kind: 'c', c: c})
		}
	}
	return out
}

// parseClass parses "[...]" at the start of s; n is its length.
func parseClass(s string) (globElem, int, bool) {
	e := globElem{kind: '['}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		e.neg = true
		i++
	}
	first := true
	for i < len(s) {
		c := s[i]
		if c == ']' && !first {
			return e, i + 1, true
		}
		first = false
		if c == '[' && i+1 < len(s) && s[i+1] == ':' {
			if j := strings.Index(s[i+2:], ":]"); j >= 0 {
				for k := range e.set {
					e.set[k] = true // a named class: any character, to be safe
				}
				i += j + 4
				continue
			}
		}
		if c == '\\' && i+1 < len(s) {
			i++
			c = s[i]
		}
		if i+2 < len(s) && s[i+1] == '-' && s[i+2] != ']' {
			for k := int(c); k <= int(s[i+2]); k++ {
				e.set[k] = true
			}
			i += 3
			continue
		}
		e.set[c] = true
		i++
	}
	return e, 0, false
}

// intersects reports whether some name matches both the pattern p and the
// sensitive pattern s (only literals and *), spelled (requireSpelling).
// leadDot: a wildcard of p
// does not match a leading dot (bash's globbing without dotglob).
func intersects(p []globElem, s string, leadDot bool) bool {
	type state struct {
		i, j    int
		started bool // a character has been matched
		spelled bool // a literal of s was matched by a non-* of p
	}
	seen := map[state]bool{}
	stack := []state{{0, 0, false, !requireSpelling}}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[st] {
			continue
		}
		seen[st] = true
		if st.i == len(p) && st.j == len(s) && st.spelled {
			return true
		}
		push := func(i, j int, started, spelled bool) { stack = append(stack, state{i, j, started, spelled}) }
		pStar := st.i < len(p) && p[st.i].kind == '*'
		sStar := st.j < len(s) && s[st.j] == '*'
		if pStar {
			push(st.i+1, st.j, st.started, st.spelled)
		}
		if sStar {
			push(st.i, st.j+1, st.started, st.spelled)
		}
		if st.i >= len(p) || st.j >= len(s) {
			continue
		}
		pe := &p[st.i]
		ni := st.i + 1
		if pStar {
			ni = st.i
		}
		switch {
		case sStar && pStar:
			// Both take a character: no progress.
		case sStar:
			// s's * takes a character p spells (p may choose one not a dot).
			push(ni, st.j, true, st.spelled)
		default:
			c, credit := s[st.j], true
			if c == sepNoCredit {
				c, credit = '/', false // a directory separator added around the name
			}
			if leadDot && !st.started && c == '.' && pe.kind != 'c' {
				continue
			}
			if pe.accepts(c) {
				push(ni, st.j+1, true, st.spelled || credit && !pStar)
			}
		}
	}
	return false
}

// patternSecret returns the token of a sensitive name the pattern can
// match in one of its components ("" if none). bash: the pattern is a bash
// word (braces and extglob expanded; * stops at /); otherwise a program's
// pattern (grep --include, a git pathspec, find -name), where * may also
// match / — checked against the whole pattern too.
func patternSecret(pat string, bash bool) string {
	if !strings.ContainsAny(pat, "*?[{(") {
		return ""
	}
	alts := []string{strings.ToLower(pat)}
	if bash {
		alts = expandPattern(strings.ToLower(pat), 256)
	}
	for _, a := range alts {
		comps := strings.Split(a, "/")
		for k, c := range comps {
			if c == "" {
				continue
			}
			pe := parseGlob(c, !bash)
			for _, s := range sensitivePatterns {
				if s.pat == ".git" && !gitConfigReachable(comps[k+1:]) {
					continue // .git is a secret for its config only
				}
				if intersects(pe, s.pat, bash) {
					return s.token
				}
			}
		}
		if !bash {
			whole := parseGlob(a, true)
			for _, s := range sensitivePatterns {
				if intersects(whole, "*"+string(sepNoCredit)+s.pat, false) || intersects(whole, s.pat+string(sepNoCredit)+"*", false) {
					return s.token
				}
			}
		}
	}
	return ""
}

// expandPattern expands brace expansion ({a,b}) and extglob groups
// (@(a|b), ?(a|b), +(a|b), *(a|b), !(a)) into plain patterns, at most
// limit of them (past it, "*" stands for the rest). +( and *( with
// several alternatives also give "*"; !(…) is "*".
func expandPattern(p string, limit int) []string {
	out := []string{}
	var rec func(prefix, rest string)
	rec = func(prefix, rest string) {
		if len(out) >= limit {
			return
		}
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if c == '\\' {
				i++
				continue
			}
			isExt := i+1 < len(rest) && rest[i+1] == '(' && strings.IndexByte("@?+*!", c) >= 0
			if c != '{' && !isExt {
				continue
			}
			open := i + 1
			if isExt {
				open = i + 2
			}
			closeCh, sep := byte('}'), byte(',')
			if isExt {
				closeCh, sep = ')', '|'
			}
			end, parts := splitGroup(rest, open, closeCh, sep)
			if end < 0 || !isExt && len(parts) < 2 {
				continue
			}
			head, tail := prefix+rest[:i], rest[end+1:]
			switch {
			case isExt && c == '!':
				rec(head+"*", tail)
				return
			case isExt && (c == '?' || c == '*'):
				rec(head, tail)
			}
			if isExt && (c == '+' || c == '*') {
				rec(head+"*", tail)
			}
			for _, part := range parts {
				rec(head, part+tail)
			}
			return
		}
		out = append(out, prefix+rest)
	}
	rec("", p)
	if len(out) >= limit {
		out = append(out, "*")
	}
	return out
}

// splitGroup finds the group starting at open (after "{" or "X(") and
// returns the index of its closing character and its top-level parts.
func splitGroup(s string, open int, closeCh, sep byte) (int, []string) {
	depth := 0
	start := open
	var parts []string
	for i := open; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '{' || c == '(':
			depth++
		case (c == '}' || c == ')') && depth > 0:
			depth--
		case c == closeCh && depth == 0:
			return i, append(parts, s[start:i])
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return -1, nil
}

// gitConfigReachable: the components below a .git match may name its
// config (none: the directory itself, searched recursively).
func gitConfigReachable(rest []string) bool {
	if len(rest) == 0 {
		return true
	}
	for _, r := range rest {
		if r == "config" || r == "hooks" || strings.ContainsAny(r, "*?[") {
			return true
		}
	}
	return false
}

// programPatterns are the words of a command that the program itself
// takes as file patterns: grep/rg --include and -g/--glob, find -name and
// -path, every non-option word of git after its subcommand (pathspecs,
// whose * matches / and a leading dot; magic such as :(glob) removed).
func programPatterns(words []word) []string {
	if len(words) < 2 || words[0].dyn {
		return nil
	}
	name := strings.ToLower(words[0].text)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var out []string
	args := words[1:]
	valueOf := func(i int, opts ...string) (string, bool) {
		a := args[i].text
		for _, o := range opts {
			switch {
			case a == o && i+1 < len(args):
				return args[i+1].text, true
			case strings.HasPrefix(o, "--") && strings.HasPrefix(a, o+"="):
				return a[len(o)+1:], true
			case len(o) == 2 && !strings.HasPrefix(a, "--") && strings.HasPrefix(a, o) && len(a) > 2:
				return a[2:], true
			}
		}
		return "", false
	}
	switch name {
	case "grep", "egrep", "fgrep", "rg", "ag", "ugrep", "ack":
		for i := range args {
			if v, ok := valueOf(i, "--include", "-g", "--glob", "--iglob", "-G", "--file-search-regex"); ok {
				out = append(out, v)
			}
		}
	case "find", "gfind", "bfs":
		for i := range args {
			if v, ok := valueOf(i, "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-lname", "-ilname"); ok {
				out = append(out, v)
			}
			if t := args[i].text; t == "-regex" || t == "-iregex" {
				// A regular expression is not intersected: take it to
				// reach a secret (what find does with the match is
				// analysed apart, -exec included).
				out = append(out, ".env*")
			}
		}
	case "git":
		sub := false
		for _, a := range args {
			t := a.text
			switch {
			case t == "--":
			case strings.HasPrefix(t, "-"):
			case !sub:
				sub = true
			case strings.HasPrefix(t, ":!") || strings.HasPrefix(t, ":^") || strings.HasPrefix(t, ":(exclude") || strings.HasPrefix(t, ":(top,exclude"):
				// An exclusion reads nothing.
			default:
				out = append(out, stripPathspecMagic(t))
			}
		}
	}
	return out
}

// stripPathspecMagic drops git's :(glob,icase), :! and :/ prefixes.
func stripPathspecMagic(p string) string {
	if strings.HasPrefix(p, ":(") {
		if i := strings.IndexByte(p, ')'); i >= 0 {
			return p[i+1:]
		}
	}
	return strings.TrimLeft(p, ":!^/")
}
