package approval

import (
	"sort"
	"strings"
	"sync"
)

// argKind is how an option takes its value, as getopt_long sees it.
type argKind uint8

const (
	noArg  argKind = iota
	reqArg         // the rest of the cluster, `=VALUE` or the next word
	optArg         // only attached: -xVALUE or --name=VALUE, never the next word
)

// optDef is one option; short and long spellings share it.
type optDef struct {
	short byte
	long  string
	kind  argKind
}

// name is the canonical spelling: the long one when there is one.
func (d *optDef) name() string {
	if d.long != "" {
		return "--" + d.long
	}
	return "-" + string(d.short)
}

// optTable is a program's option grammar. Programs parse options their own
// way; the table must say exactly what the program accepts, because a word
// read as an option value when the program reads it as the command (or the
// reverse) makes the analysis check a different program than the one that runs.
type optTable struct {
	// abbrev: GNU getopt_long accepts any unambiguous prefix of a long option.
	abbrev bool
	// permute: GNU programs take options after operands too (until --);
	// wrappers stop at their first operand (the command).
	permute bool

	spec  string
	once  sync.Once
	short map[byte]*optDef
	long  map[string]*optDef
	longs []string // sorted, for prefix search
}

// opts is a table from entries such as "t|target-directory=": short and
// long spellings separated by |, then "=" for a required value or "=?" for
// an optional (attached only) one. A one-character spelling is short. The
// entries are read on the table's first use: dozens of tables with
// hundreds of options would otherwise cost every chatls process ~1 ms at
// start (GODEBUG=inittrace=1), `chatls --version` included.
func opts(spec string, abbrev, permute bool) *optTable {
	return &optTable{spec: spec, abbrev: abbrev, permute: permute}
}

// grammar is the table, its entries read.
func (t *optTable) grammar() *optTable {
	t.once.Do(t.read)
	return t
}

func (t *optTable) read() {
	t.short, t.long = map[byte]*optDef{}, map[string]*optDef{}
	for _, entry := range strings.Fields(t.spec) {
		d := &optDef{}
		switch {
		case strings.HasSuffix(entry, "=?"):
			d.kind, entry = optArg, strings.TrimSuffix(entry, "=?")
		case strings.HasSuffix(entry, "="):
			d.kind, entry = reqArg, strings.TrimSuffix(entry, "=")
		}
		for _, sp := range strings.Split(entry, "|") {
			if len(sp) == 1 {
				if d.short == 0 {
					d.short = sp[0]
				}
				t.short[sp[0]] = d
			} else {
				if d.long == "" {
					d.long = sp
				}
				t.long[sp] = d
				t.longs = append(t.longs, sp)
			}
		}
	}
	sort.Strings(t.longs)
}

// shortDef is the option spelled -c.
func (t *optTable) shortDef(c byte) (*optDef, bool) {
	d, ok := t.grammar().short[c]
	return d, ok
}

// optHit is one option found in the arguments.
type optHit struct {
	def   *optDef
	name  string // canonical (--long when the option has one)
	value word
	has   bool // a value was given
	pos   int  // index of the word holding the option
}

// optParse is the result of reading a command's arguments with its table.
type optParse struct {
	opts     []optHit
	operands []word
	// unknown are option words the table does not know (or that the program
	// would reject: ambiguous prefixes, a value where none is allowed).
	unknown []string
	// abbreviated are long options written as a prefix (--recur).
	abbreviated []string
	// dynOpt: a word known only at run time stood where an option may be.
	dynOpt bool
	// rest is, without permutation, the index of the first word that is not
	// an option of this program (the wrapped command); -1 when the options
	// could not be read to the end (unknown option, dynamic word).
	rest int
}

func (p optParse) has(names ...string) (optHit, bool) {
	for _, h := range p.opts {
		for _, n := range names {
			if h.name == n || h.def != nil && h.def.short != 0 && n == "-"+string(h.def.short) {
				return h, true
			}
		}
	}
	return optHit{}, false
}

func (p optParse) all(names ...string) []optHit {
	var out []optHit
	for _, h := range p.opts {
		for _, n := range names {
			if h.name == n || h.def != nil && h.def.short != 0 && n == "-"+string(h.def.short) {
				out = append(out, h)
				break
			}
		}
	}
	return out
}

// uncertain reports why the parse can't be trusted ("" when it can).
func (p optParse) uncertain() string {
	switch {
	case len(p.unknown) > 0:
		return "an option chatls does not know (" + p.unknown[0] + ")"
	case p.dynOpt:
		return "an argument known only at run time where an option may stand"
	}
	return ""
}

// mayBeOption: the word is an option word or could turn into one at run time.
func mayBeOption(a word) bool {
	if a.dyn {
		return a.lead == 0 || strings.HasPrefix(a.text, "-")
	}
	return len(a.text) > 1 && a.text[0] == '-'
}

// lookupLong finds a long option by exact name or, with abbrev, by unique prefix.
func (t *optTable) lookupLong(key string) (d *optDef, abbreviated, ok bool) {
	t.grammar()
	if d, ok := t.long[key]; ok {
		return d, false, true
	}
	if !t.abbrev || key == "" {
		return nil, false, false
	}
	i := sort.SearchStrings(t.longs, key)
	var found *optDef
	for ; i < len(t.longs) && strings.HasPrefix(t.longs[i], key); i++ {
		d := t.long[t.longs[i]]
		if found != nil && found != d {
			return nil, false, false // ambiguous: the program refuses it
		}
		found = d
	}
	return found, found != nil, found != nil
}

// parse reads args the way getopt_long would with this table.
func (t *optTable) parse(args []word) optParse {
	t.grammar()
	var p optParse
	p.rest = -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn {
			if mayBeOption(a) {
				p.dynOpt = true
				if !t.permute {
					return p
				}
			}
			if !t.permute {
				p.rest = i
				return p
			}
			p.operands = append(p.operands, a)
			continue
		}
		s := a.text
		if s == "--" {
			if !t.permute {
				p.rest = i + 1
				return p
			}
			p.operands = append(p.operands, args[i+1:]...)
			return p
		}
		if len(s) < 2 || s[0] != '-' {
			if !t.permute {
				p.rest = i
				return p
			}
			p.operands = append(p.operands, a)
			continue
		}
		if strings.HasPrefix(s, "--") {
			key, val, hasVal := strings.Cut(s[2:], "=")
			d, abbr, ok := t.lookupLong(key)
			if !ok || d.kind == noArg && hasVal {
				p.unknown = append(p.unknown, s)
				if !t.permute {
					return p
				}
				continue
			}
			if abbr {
				p.abbreviated = append(p.abbreviated, s)
			}
			h := optHit{def: d, name: d.name(), pos: i}
			switch {
			case hasVal:
				h.value, h.has = word{text: val, lead: len(val)}, true
			case d.kind == reqArg && i+1 < len(args):
				i++
				h.value, h.has = args[i], true
			case d.kind == reqArg:
				p.unknown = append(p.unknown, s+" without its value")
			}
			p.opts = append(p.opts, h)
			continue
		}
		// A cluster of short options; a value-taking one ends it.
		for j := 1; j < len(s); j++ {
			d, ok := t.short[s[j]]
			if !ok {
				p.unknown = append(p.unknown, "-"+s[j:j+1]+" in "+s)
				if !t.permute {
					return p
				}
				break
			}
			h := optHit{def: d, name: d.name(), pos: i}
			if d.kind != noArg {
				rest := s[j+1:]
				switch {
				case rest != "":
					h.value, h.has = word{text: rest, lead: len(rest)}, true
				case d.kind == reqArg && i+1 < len(args):
					i++
					h.value, h.has = args[i], true
				case d.kind == reqArg:
					p.unknown = append(p.unknown, s+" without its value")
				}
				p.opts = append(p.opts, h)
				break
			}
			p.opts = append(p.opts, h)
		}
	}
	if !t.permute {
		p.rest = len(args)
	}
	return p
}

// longSpellings lists the long names that mean the same option as flag
// (for deny rules: --recur may be an abbreviation of --recursive = -r).
func (t *optTable) longSpellings(flag string) []string {
	t.grammar()
	var out []string
	var d *optDef
	if strings.HasPrefix(flag, "--") {
		d = t.long[flag[2:]]
		out = append(out, flag[2:])
	} else if len(flag) == 2 {
		d = t.short[flag[1]]
	}
	if d == nil {
		return out
	}
	for name, x := range t.long {
		if x == d && name != strings.TrimPrefix(flag, "--") {
			out = append(out, name)
		}
	}
	return out
}
