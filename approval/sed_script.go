package approval

import (
	"path"
	"strings"
)

// sedScript is what a GNU sed script does besides editing its stream:
// the files its w/W commands and s///w flags write, the files its r/R
// commands read, and whether it runs commands (e, s///e). bad says the
// parser could not follow the script (the call then asks): a script GNU
// sed accepts and this parser does not is never approved by a guess.
type sedScript struct {
	writes, reads []string
	runs          bool
	bad           string
}

// parseSedScript parses a script the way GNU sed 4.9 does: commands
// separated by ; or newlines, addresses (N, $, first~step, /re/I, \%re%M,
// addr1,+N, addr1,~N, 0,/re/), !, { } blocks, a/i/c text, labels, and
// the file name that ends r, R, w, W and s///w at the end of the line.
func parseSedScript(script string) sedScript {
	p := &sedParser{s: script}
	p.run()
	return p.out
}

type sedParser struct {
	s   string
	i   int
	out sedScript
}

func (p *sedParser) fail(why string) {
	if p.out.bad == "" {
		p.out.bad = why
	}
	p.i = len(p.s)
}

func (p *sedParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sedParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *sedParser) run() {
	depth := 0
	for p.i < len(p.s) {
		p.skipSpace()
		c := p.peek()
		switch {
		case c == 0:
			return
		case c == ';' || c == '\n' || c == '\r':
			p.i++
			continue
		case c == '#':
			p.toEOL()
			continue
		}
		p.address()
		p.skipSpace()
		if p.peek() == ',' {
			p.i++
			p.skipSpace()
			if c := p.peek(); c == '+' || c == '~' {
				p.i++
				if !p.digits() {
					p.fail("bad address")
				}
			} else if !p.address() {
				p.fail("missing second address")
			}
		}
		p.skipSpace()
		for p.peek() == '!' {
			p.i++
			p.skipSpace()
		}
		if p.i >= len(p.s) {
			p.fail("missing command")
			return
		}
		cmd := p.s[p.i]
		p.i++
		switch cmd {
		case '{':
			depth++
			continue
		case '}':
			if depth == 0 {
				p.fail("unexpected }")
				return
			}
			depth--
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			p.skipSpace()
			p.digits()
		case 'a', 'i', 'c':
			p.text()
			continue
		case ':':
			p.skipSpace()
			if p.label() == "" {
				p.fail("\":\" lacks a label")
			}
			continue
		case 'b', 't', 'T':
			p.skipSpace()
			p.label()
			continue
		case 'r', 'R':
			p.out.reads = append(p.out.reads, p.fileName())
			continue
		case 'w', 'W':
			p.out.writes = append(p.out.writes, p.fileName())
			continue
		case 'e':
			p.out.runs = true
			p.toEOL()
			continue
		case 'v':
			p.label()
			continue
		case 's':
			p.substitute()
			if p.out.bad != "" {
				return
			}
			continue
		case 'y':
			d := p.peek()
			p.i++
			if d == 0 || d == '\n' || d == '\\' || !p.delimited(d, false) || !p.delimited(d, false) {
				p.fail("unterminated y command")
			}
		default:
			p.fail("unknown command " + string(cmd))
			return
		}
		p.endOfCommand()
	}
	if depth != 0 {
		p.fail("unmatched {")
	}
}

// endOfCommand: only spaces, then ; newline } # or the end may follow.
func (p *sedParser) endOfCommand() {
	p.skipSpace()
	switch p.peek() {
	case 0, ';', '\n', '\r', '}', '#':
		return
	}
	p.fail("extra characters after command")
}

// address parses one address; false when there is none.
func (p *sedParser) address() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.peek() == '~' {
			p.i++
			p.digits()
		}
		return true
	case c == '$':
		p.i++
		return true
	case c == '/' || c == '\\':
		if c == '\\' {
			p.i++
			c = p.peek()
			if c == 0 || c == '\n' || c == '\\' {
				p.fail("bad regex delimiter")
				return true
			}
		}
		p.i++
		if !p.delimited(c, true) {
			p.fail("unterminated address regex")
			return true
		}
		for p.peek() == 'I' || p.peek() == 'M' {
			p.i++
		}
		return true
	}
	return false
}

func (p *sedParser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// delimited skips to after the next unescaped delimiter d; regex: a
// bracket expression may hold d.
func (p *sedParser) delimited(d byte, regex bool) bool {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i += 2
			continue
		case c == d:
			p.i++
			return true
		case c == '\n' && !regex:
			// a newline in y or a replacement must be escaped
		case c == '[' && regex && d != '[':
			p.i = skipBracket(p.s, p.i)
			continue
		}
		p.i++
	}
	return false
}

// skipBracket returns the index after the bracket expression at i (or i+1
// when it is not closed: then [ is literal).
func skipBracket(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for j < len(s) {
		switch {
		case s[j] == '[' && j+1 < len(s) && (s[j+1] == ':' || s[j+1] == '.' || s[j+1] == '='):
			end := strings.Index(s[j+2:], string(s[j+1])+"]")
			if end < 0 {
				return i + 1
			}
			j += end + 4
			continue
		case s[j] == ']':
			return j + 1
		case s[j] == '\n':
			return i + 1
		}
		j++
	}
	return i + 1
}

// substitute parses s/re/repl/flags after the s.
func (p *sedParser) substitute() {
	d := p.peek()
	if d == 0 || d == '\n' || d == '\\' {
		p.fail("unterminated s command")
		return
	}
	p.i++
	if !p.delimited(d, true) || !p.delimited(d, false) {
		p.fail("unterminated s command")
		return
	}
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c >= '0' && c <= '9':
			p.i++
		case c == 'e':
			p.out.runs = true
			p.i++
		case c == 'w':
			p.i++
			p.out.writes = append(p.out.writes, p.fileName())
			return
		default:
			p.endOfCommand()
			return
		}
	}
}

// fileName is the rest of the line after leading blanks (GNU sed: ; and
// } are part of the name).
func (p *sedParser) fileName() string {
	p.skipSpace()
	start := p.i
	p.toEOL()
	name := p.s[start:p.i]
	if name == "" {
		p.fail("missing file name")
	}
	return name
}

func (p *sedParser) toEOL() {
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
}

// label reads a label up to ; or the end of the line.
func (p *sedParser) label() string {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != ';' {
		p.i++
	}
	return strings.TrimSpace(p.s[start:p.i])
}

// text skips a/i/c text: "a\" then lines ending in \ continue, or the
// one-line "a text".
func (p *sedParser) text() {
	p.skipSpace()
	if p.peek() == '\\' {
		p.i++
		if p.peek() == '\n' {
			p.i++
		}
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\\' {
			p.i += 2
			continue
		}
		if c == '\n' {
			p.i++
			return
		}
		p.i++
	}
}

// sedBackupNames are where sed -i SUFFIX may put the original of file: GNU
// sed 4.9 replaces each * in SUFFIX with the file's name as given (q/* on
// src/f is q/src/f, relative to the working directory) and appends a
// SUFFIX without *; the GNU manual describes the * as the base name
// beside the file, which older versions may do — both are checked.
func sedBackupNames(file, suffix string) []string {
	if !strings.Contains(suffix, "*") {
		return []string{file + suffix}
	}
	out := []string{strings.ReplaceAll(suffix, "*", file)}
	if b := strings.ReplaceAll(suffix, "*", path.Base(file)); !strings.HasPrefix(b, "/") {
		out = append(out, path.Join(path.Dir(file), b))
	} else {
		out = append(out, b)
	}
	return out
}
