package approval

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The shell parser chatls uses (mvdan.cc/sh) and bash disagree about some
// characters: the parser takes a carriage return for a blank and
// backslash-CR-LF for a line continuation, bash takes both for ordinary
// word characters — so "git status \r#; rm -rf x" is one command with a
// comment to the parser and two commands to bash. And in a single-byte
// locale bash may take a no-break space (byte 0xA0) for a blank, which the
// parser never does. A command holding such characters is never
// auto-approved, and deny rules are matched on every way bash may read it.

// wordCharStandIn replaces characters bash reads as word characters but the
// parser does not; it is a word character for both (a private-use rune).
const wordCharStandIn = "\uE000"

// bashReading is the command as bash reads it, spelled so that the parser
// reads it the same way, and why the command can never be auto-approved
// ("" when it reads plainly).
func bashReading(cmd string) (reading, why string) {
	var b strings.Builder
	for i := 0; i < len(cmd); {
		r, size := utf8.DecodeRuneInString(cmd[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			why = "the command holds bytes that are not UTF-8, which the shell may read differently in another locale"
			b.WriteByte(cmd[i])
		case r == '\r':
			why = "the command holds a carriage return, which the shell and chatls's parser read differently"
			b.WriteString(wordCharStandIn)
		case r < 0x20 && r != '\t' && r != '\n' || r == 0x7f:
			if why == "" {
				why = "the command holds a control character, which the shell and chatls's parser may read differently"
			}
			b.WriteString(wordCharStandIn)
		case unicodeBlank(r):
			if why == "" {
				why = "the command holds a Unicode space, which the shell may read as a blank in some locales"
			}
			b.WriteRune(r)
		default:
			b.WriteString(cmd[i : i+size])
		}
		i += size
	}
	return b.String(), why
}

// blankReading is the command as bash reads it in a locale whose blanks
// include the no-break space and other Unicode or Latin-1 spaces; "" when
// that reading is the same as bashReading's.
func blankReading(reading string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(reading); {
		r, size := utf8.DecodeRuneInString(reading[i:])
		if unicodeBlank(r) || size == 1 && (reading[i] == 0xA0 || reading[i] == 0x85) {
			b.WriteByte(' ')
			changed = true
		} else {
			b.WriteString(reading[i : i+size])
		}
		i += size
	}
	if !changed {
		return ""
	}
	return b.String()
}

func unicodeBlank(r rune) bool {
	switch r {
	case 0x85, 0xA0, 0x1680, 0x180E, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200B
}

// paramExpansion matches $NAME, ${…} and special parameters: at run time
// each may be empty or split words ($IFS, ${IFS}), so the scan reads them
// as blanks ("rm$unset -rf x" and "rm${IFS}-rf" run rm).
var paramExpansion = regexp.MustCompile(`\$(?:\{[^}]*\}?|[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])`)

// ansiCQuote matches $'…' (its escapes spell any word: $'\x72m' is rm).
var ansiCQuote = regexp.MustCompile(`\$'((?:[^'\\]|\\.)*)'`)

// scanSeparators split the text into the words the deny scan checks.
const scanSeparators = " \t\n;&|()<>`{},='\"\\$"

// maxScanWords bounds how many words of one candidate command the scan
// hands to a deny rule (rules name a few words).
const maxScanWords = 32

// denyScan lists, for deny rules only, every command a text could run when
// its analysis is incomplete (it does not parse, is too long, hides
// commands in functions, aliases, $IFS splits, brace expansion, quotes it
// never closes…): the text is split at every character that can separate
// words, quotes and $IFS removed, and every suffix of the word list is a
// candidate command. Broad on purpose: only deny rules look at it, and a
// call whose analysis is incomplete is never approved anyway.
func denyScan(text string) [][]word {
	// Expansions first: a name ends where $'…' starts ($IFS$'\x72m' is
	// a split and then rm).
	text = paramExpansion.ReplaceAllString(text, " ")
	text = ansiCQuote.ReplaceAllStringFunc(text, func(q string) string {
		if s, ok := ansiC(q[2 : len(q)-1]); ok {
			return s
		}
		return q
	})
	text = strings.ReplaceAll(text, wordCharStandIn, " ")
	var words []word
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return strings.ContainsRune(scanSeparators, r) || r == '\r' || unicodeBlank(r)
	}) {
		f = strings.TrimPrefix(f, "$") // $'…' and $"…" quoting
		if f != "" {
			words = append(words, word{text: f, lead: len(f)})
		}
	}
	var out [][]word
	for i := range words {
		if strings.HasPrefix(words[i].text, "-") {
			continue // a command name never starts with -
		}
		out = append(out, words[i:min(len(words), i+maxScanWords)])
	}
	return out
}
