package approval

import (
	"errors"
	"path"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// cmdPattern is a bash rule's PATTERN: a command name and words where the
// word * matches zero or more words and * inside a word any characters.
type cmdPattern struct {
	name  string
	words []string // normalized (flag clusters split, aliases mapped, runs sorted)
	// For deny rules: the flags the command must carry and the other
	// literal words it must contain in order.
	flags []string
	plain []string
}

func compileCmdPattern(text string) (*cmdPattern, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return nil, errors.New("the pattern does not parse as a command; quote special characters")
	}
	if len(f.Stmts) != 1 {
		return nil, errors.New("a bash rule names one command; write one rule per command")
	}
	s := f.Stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(s.Redirs) > 0 || s.Background || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, errors.New("a bash rule names one simple command (no &&, |, ;, redirections or assignments); write one rule per command")
	}
	var raw []string
	for _, a := range call.Args {
		w := resolveWord(a)
		if w.dyn {
			return nil, errors.New("patterns can't contain $variables or substitutions")
		}
		raw = append(raw, w.text)
	}
	p := &cmdPattern{name: raw[0]}
	p.words = normalizeArgs(path.Base(p.name), raw[1:])
	for _, w := range p.words {
		switch {
		case w == "*":
		case isFlag(w):
			p.flags = append(p.flags, w)
		default:
			p.plain = append(p.plain, w)
		}
	}
	return p, nil
}

// dynToken stands for an argument whose value is unknown; only * matches it.
const dynToken = "\x00"

// flagAliases maps long or alternative flags to one spelling per command,
// so `rm --recursive --force` and `rm -rf` look the same to rules.
var flagAliases = map[string]map[string]string{
	"rm":    {"--recursive": "-r", "-R": "-r", "--force": "-f", "--dir": "-d", "--verbose": "-v", "--interactive": "-i"},
	"cp":    {"--recursive": "-r", "-R": "-r", "--force": "-f", "--verbose": "-v", "--archive": "-a"},
	"mv":    {"--force": "-f", "--verbose": "-v"},
	"chmod": {"--recursive": "-R", "--verbose": "-v"},
	"chown": {"--recursive": "-R", "--verbose": "-v"},
	"git":   {"--force": "-f", "--all": "-a", "--message": "-m"},
	"grep":  {"--recursive": "-r", "-R": "-r", "--ignore-case": "-i"},
}

func isFlag(w string) bool { return len(w) > 1 && w[0] == '-' && w != dynToken }

// optionTable is the option grammar chatls knows for a command (nil if
// none): used to expand abbreviated long options (rm --recur = rm -r).
func optionTable(name string) *optTable {
	if w, ok := writers[name]; ok && w.opts != nil {
		return w.opts
	}
	return nil
}

// canonicalFlag is the one spelling an option is compared by: its short
// form when it has one (rm --recursive = -r).
func canonicalFlag(d *optDef) string {
	if d.short != 0 {
		return "-" + string(d.short)
	}
	return "--" + d.long
}

// normalizeArgs splits -rf into -r -f, maps aliases, expands unambiguous
// abbreviations of long options the command is known to have, and sorts
// each run of flags, so flag order and spelling don't matter. Words after
// -- are left alone.
func normalizeArgs(name string, args []string) []string {
	aliases := flagAliases[name]
	table := optionTable(name)
	out := make([]string, 0, len(args)+2)
	ended := false
	for _, a := range args {
		switch {
		case ended || a == dynToken || !isFlag(a):
			out = append(out, a)
		case a == "--":
			out = append(out, a)
			ended = true
		case strings.HasPrefix(a, "--"):
			if table != nil {
				key, val, hasVal := strings.Cut(a[2:], "=")
				if d, _, ok := table.lookupLong(key); ok {
					if hasVal {
						a = "--" + d.long + "=" + val
					} else {
						a = canonicalFlag(d)
					}
				}
			}
			if m, ok := aliases[a]; ok {
				a = m
			}
			out = append(out, a)
		case isLetters(a[1:]):
			for _, c := range a[1:] {
				f := "-" + string(c)
				if table != nil && c < 128 {
					if d, ok := table.shortDef(byte(c)); ok {
						f = canonicalFlag(d)
					}
				}
				if m, ok := aliases[f]; ok {
					f = m
				}
				out = append(out, f)
			}
		default:
			out = append(out, a)
		}
	}
	// Sort runs of flags (before --) so -r -f equals -f -r.
	for i := 0; i < len(out); {
		if out[i] == "--" {
			break
		}
		if !isFlag(out[i]) || out[i] == "*" {
			i++
			continue
		}
		j := i
		for j < len(out) && isFlag(out[j]) && out[j] != "--" {
			j++
		}
		sort.Strings(out[i:j])
		i = j
	}
	return out
}

// longNames lists the long spellings of a normalized flag for a command
// (-r → recursive for rm), for matching abbreviations against deny rules.
func longNames(name, flag string) []string {
	var out []string
	if strings.HasPrefix(flag, "--") {
		out = append(out, strings.TrimPrefix(flag, "--"))
	}
	for long, short := range flagAliases[name] {
		if short == flag && strings.HasPrefix(long, "--") {
			out = append(out, strings.TrimPrefix(long, "--"))
		}
	}
	if t := optionTable(name); t != nil {
		out = append(out, t.longSpellings(flag)...)
	}
	return out
}

// abbreviates reports whether a command word --KEY may be an abbreviation
// of one of flag's long spellings: deny rules treat it as that flag.
func abbreviates(word, name, flag string) bool {
	if !strings.HasPrefix(word, "--") || len(word) < 3 {
		return false
	}
	key, _, _ := strings.Cut(word[2:], "=")
	for _, l := range longNames(name, flag) {
		if strings.HasPrefix(l, key) {
			return true
		}
	}
	return false
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// standardBinDirs are where a /bin/rm-style absolute name still means rm for allow rules.
var standardBinDirs = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true,
	"/usr/local/sbin": true, "/opt/homebrew/bin": true,
}

func commandArgs(words []word) (name word, args []string) {
	args = make([]string, 0, len(words))
	for _, w := range words[1:] {
		if w.dyn {
			args = append(args, dynToken)
		} else {
			args = append(args, w.text)
		}
	}
	return words[0], args
}

// allowMatch: the command matches word by word, in order (flag runs
// compared as sets). /usr/bin/go counts as go; ./go does not.
func (p *cmdPattern) allowMatch(words []word) bool {
	if len(words) == 0 {
		return false
	}
	name, args := commandArgs(words)
	if name.dyn || name.glob {
		return false
	}
	if !wildcard(p.name, name.text) {
		dir, base := path.Split(name.text)
		if !standardBinDirs[strings.TrimSuffix(dir, "/")] || !wildcard(p.name, base) {
			return false
		}
	}
	return seqMatch(p.words, normalizeArgs(path.Base(name.text), args))
}

// seqMatch matches words against a pattern where "*" is zero or more words.
func seqMatch(pat, words []string) bool {
	pi, wi, star, mark := 0, 0, -1, 0
	for wi < len(words) {
		switch {
		case pi < len(pat) && pat[pi] == "*":
			star, mark = pi, wi
			pi++
		case pi < len(pat) && wordMatch(pat[pi], words[wi]):
			pi++
			wi++
		case star >= 0:
			pi = star + 1
			mark++
			wi = mark
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == "*" {
		pi++
	}
	return pi == len(pat)
}

func wordMatch(p, w string) bool {
	if w == dynToken {
		return false // only a whole-word * accepts an unknown argument
	}
	return wildcard(p, w)
}

// denyResult is a deny rule's verdict on a command.
type denyResult int

const (
	denyNo    denyResult = iota
	denyMaybe            // could match once $variables are filled in
	denyYes
)

// denyMatch is broad on purpose: the name matches by basename (also /bin/rm,
// busybox rm, ${X:-rm}, r* globs), the pattern's flags must all be present in
// any order or spelling, and its other words must appear in order.
func (p *cmdPattern) denyMatch(words []word) denyResult {
	if len(words) == 0 {
		return denyNo
	}
	name, args := commandArgs(words)
	if !p.nameMatchesLoosely(name) {
		return denyNo
	}
	norm := normalizeArgs(path.Base(name.text), args)
	have := make(map[string]bool, len(norm))
	var plain []string
	dyn := false
	for _, a := range norm {
		switch {
		case a == dynToken:
			dyn = true
		case isFlag(a) && a != "--":
			have[a] = true
		default:
			plain = append(plain, a)
		}
	}
	base := path.Base(name.text)
	ok := true
	for _, f := range p.flags {
		if have[f] {
			continue
		}
		// An abbreviation (--forc) or an unknown long option that could
		// stand for the denied flag counts as it.
		found := false
		for _, a := range norm {
			if abbreviates(a, base, f) {
				found = true
				break
			}
		}
		if !found {
			ok = false
			break
		}
	}
	if ok && subsequence(p.plain, plain) {
		return denyYes
	}
	if dyn || name.dyn {
		return denyMaybe
	}
	return denyNo
}

func (p *cmdPattern) nameMatchesLoosely(name word) bool {
	candidates := append([]string{}, name.alt...)
	if !name.dyn {
		candidates = append(candidates, name.text)
	}
	for _, c := range candidates {
		if name.glob && !name.dyn {
			// A globbed name (/bin/r?) may expand to the denied command.
			if ok, _ := path.Match(path.Base(c), path.Base(p.name)); ok {
				return true
			}
		}
		if wildcard(p.name, c) || wildcard(p.name, path.Base(c)) {
			return true
		}
	}
	return false
}

func subsequence(want, have []string) bool {
	i := 0
	for _, h := range have {
		if i < len(want) && wordMatch(want[i], h) {
			i++
		}
	}
	return i == len(want)
}
