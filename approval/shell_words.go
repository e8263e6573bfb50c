package approval

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word after quote removal. A word whose value depends on
// the run (variables, substitutions) is dynamic: nothing may be assumed
// about it. alt holds literal defaults such as the "rm" in ${X:-rm}, which
// deny rules still check.
type word struct {
	text string
	dyn  bool
	glob bool // unquoted *, ?, [ or brace expansion: expands to other words
	alt  []string
	// lead is how many bytes at the start of text are known before the
	// first dynamic part (all of it when !dyn): "$X" has 0 and may turn into
	// an option at run time; "s/$a/b/" starts with a known s.
	lead int
	// tainted: a dynamic part comes from a variable the command itself
	// sets at run time (shell_vars.go).
	tainted bool
	// pat is the word as a bash pattern (set when glob): quoted text
	// escaped, extglob groups kept, a dynamic part as *.
	pat string
}

// dynWord stands for arguments that come from elsewhere (xargs' stdin, find's {}).
var dynWord = word{dyn: true}

// resolveWord removes quotes and escapes the way bash would, without
// expanding anything dynamic.
func resolveWord(w *syntax.Word) word {
	var out word
	var b, pat strings.Builder
	markDyn := func() {
		if !out.dyn {
			out.dyn = true
			out.lead = b.Len()
		}
	}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				// ~ expands to $HOME; ~/x is handled by paths, ~user is dynamic.
				if rest := v[1:]; rest != "" && !strings.HasPrefix(rest, "/") {
					markDyn()
				}
			}
			if hasUnquotedGlob(v) {
				out.glob = true
			}
			b.WriteString(unescapeUnquoted(v))
			pat.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				s, ok := ansiC(p.Value)
				if !ok {
					markDyn()
				}
				b.WriteString(s)
				pat.WriteString(escapeGlob(s))
			} else {
				b.WriteString(p.Value)
				pat.WriteString(escapeGlob(p.Value))
			}
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				if lit, ok := dp.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(lit.Value))
					pat.WriteString(escapeGlob(unescapeDouble(lit.Value)))
					continue
				}
				markDyn()
				collectAlt(dp, &out)
				pat.WriteString("*")
			}
		case *syntax.ParamExp:
			markDyn()
			collectAlt(p, &out)
			pat.WriteString("*")
		default:
			// Command/process substitution, arithmetic, extglob, braces.
			markDyn()
			if eg, ok := p.(*syntax.ExtGlob); ok {
				out.glob = true
				pat.WriteString(eg.Op.String() + eg.Pattern.Value + ")")
			} else {
				pat.WriteString("*")
			}
		}
	}
	out.text = b.String()
	if out.glob {
		out.pat = pat.String()
	}
	if !out.dyn {
		out.lead = len(out.text)
	}
	return out
}

// collectAlt records the literal fallback of ${X:-word} / ${X:=word} / ${X:+word}.
func collectAlt(part syntax.WordPart, out *word) {
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Exp == nil || pe.Exp.Word == nil {
		return
	}
	if alt := resolveWord(pe.Exp.Word); !alt.dyn {
		out.alt = append(out.alt, alt.text)
	}
}

// hasUnquotedGlob reports glob or brace-expansion syntax in an unquoted literal.
func hasUnquotedGlob(v string) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			// A bracket expression needs its ]; a lone [ (the test command) is literal.
			if strings.IndexByte(v[i+1:], ']') >= 0 {
				return true
			}
		case '{':
			if j := strings.IndexByte(v[i:], '}'); j > 0 {
				inner := v[i+1 : i+j]
				if strings.Contains(inner, ",") || strings.Contains(inner, "..") {
					return true
				}
			}
		}
	}
	return false
}

// unescapeUnquoted drops backslashes outside quotes: \r → r, \<newline> → "".
func unescapeUnquoted(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
			if v[i] == '\n' {
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// unescapeDouble handles the backslashes that are special inside "…".
func unescapeDouble(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
			i++
			if v[i] == '\n' {
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// ansiC decodes $'…' escapes ($'\x72m' is rm). ok is false for escapes it
// does not know, so the word is treated as dynamic.
func ansiC(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 >= len(v) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := v[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(v) && j-i-1 < n && isHex(v[j]) {
				j++
			}
			if j == i+1 {
				return "", false
			}
			x, err := strconv.ParseUint(v[i+1:j], 16, 32)
			if err != nil {
				return "", false
			}
			if e == 'x' {
				b.WriteByte(byte(x))
			} else {
				b.WriteRune(rune(x))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(v) && j-i < 3 && v[j] >= '0' && v[j] <= '7' {
				j++
			}
			x, _ := strconv.ParseUint(v[i:j], 8, 16)
			b.WriteByte(byte(x))
			i = j - 1
		default:
			return "", false
		}
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// escapeGlob makes quoted text literal in a pattern.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, "*?[]{}()\\|@!+") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("*?[]{}()\\|@!+", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
