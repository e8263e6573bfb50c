// Package jsonfast reads JSON text as encoding/json does (the same
// verdicts, keys, U+FFFD replacements, last duplicate key winning) about
// three times as fast, for the hot paths that would otherwise pay
// encoding/json's scanner several times over: the inputs a validator
// judges from their text (tools) and the frames of a 10 MB didOpen
// (server/framing). It builds no values: decoding is encoding/json's. Where
// it is unsure it says no, and the caller asks encoding/json. The fuzz
// targets hold it to encoding/json.
package jsonfast

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Valid reports whether s is one JSON value, as encoding/json.Valid does
// (FuzzValid holds the two to the same verdicts).
func Valid(s string) bool {
	return (&jsonDecoder{s: s, syntax: true}).topValue()
}

// Unquote decodes a JSON string token (quotes included) into the string
// encoding/json.Unmarshal gives: escapes resolved, invalid UTF-8 and lone
// surrogates as U+FFFD. Without escapes it is a substring of token.
func Unquote(token string) (string, bool) {
	d := &jsonDecoder{s: token, unquoteCap: len(token)}
	if len(token) < 2 || token[0] != '"' {
		return "", false
	}
	if len(token) >= boundCapFrom {
		d.unquoteCap = unquotedBound(token)
	}
	str, ok := d.string()
	return str, ok && d.i == len(token)
}

// EachNamedString checks s as Valid does and calls fn with the span of
// the quoted token of every string value of a member named exactly key,
// at any depth, in order. A member whose key only matches key ignoring
// case (which encoding/json would fill a struct field from as well) is
// not reported.
func EachNamedString(s, key string, fn func(start, end int)) bool {
	return (&jsonDecoder{s: s, syntax: true, namedKey: key, named: fn}).topValue()
}

// topValue reads one value and nothing after it but space.
func (d *jsonDecoder) topValue() bool {
	if !d.value(0) {
		return false
	}
	d.space()
	return d.i == len(d.s)
}

// jsonMaxNesting is encoding/json's maxNestingDepth.
const jsonMaxNesting = 10000

type jsonDecoder struct {
	s string
	i int
	// syntax: check the syntax only, as encoding/json.Valid does (a number
	// out of float64's range is valid JSON; only decoding refuses it).
	syntax bool
	// named, when set, is told of the string value of every member named
	// exactly namedKey, at any depth: the span of its quoted token.
	namedKey string
	named    func(start, end int)
	// unquoteCap is the capacity an unquoted string starts with: Unquote
	// knows the length of its one token (a 10 MB text would otherwise be
	// copied some twenty times while it grows).
	unquoteCap int
}

// boundCapFrom is the token length from which Unquote bounds the decoded
// length more closely than by the token's: the string keeps its whole
// array alive, and a 10 MB document's escapes (~350,000 "\n") would hold
// ~0.4 MB more than its text for the session.
const boundCapFrom = 1 << 20

// unquotedBound is at least the length of the string token decodes to, if
// it is valid and its UTF-8 valid (each invalid byte becomes three): every
// escape shortens the text by one byte or more, and an escape is one
// backslash, or two for an escaped backslash. Two vectorised counts: an
// exact measure walks the escapes and cost an open 15-25 ms.
func unquotedBound(token string) int {
	escapes := strings.Count(token, `\`)
	if escapes > 0 {
		escapes -= strings.Count(token, `\\`)
	}
	return len(token) - 2 - escapes
}

func (d *jsonDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// value checks one value: its syntax, and unless syntax, that a number
// is in float64's range (encoding/json refuses to decode one that is not).
func (d *jsonDecoder) value(depth int) bool {
	d.space()
	if d.i >= len(d.s) {
		return false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.skipString() // a checked string is not built
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	for _, lit := range []string{"null", "true", "false"} {
		if strings.HasPrefix(d.s[d.i:], lit) {
			d.i += len(lit)
			return true
		}
	}
	return false
}

func (d *jsonDecoder) object(depth int) bool {
	if depth++; depth > jsonMaxNesting {
		return false
	}
	d.i++ // '{'
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return true
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return false
		}
		key, ok := d.string()
		if !ok {
			return false
		}
		if d.space(); d.i >= len(d.s) || d.s[d.i] != ':' {
			return false
		}
		d.i++
		d.space()
		start := d.i
		if !d.value(depth) {
			return false
		}
		if d.named != nil && key == d.namedKey && d.s[start] == '"' {
			d.named(start, d.i)
		}
		if more, ok := d.after('}'); !ok {
			return false
		} else if !more {
			return true
		}
	}
}

// after reads what follows a member or an element: a comma (more to
// come) or the closer.
func (d *jsonDecoder) after(closer byte) (more, ok bool) {
	if d.space(); d.i >= len(d.s) {
		return false, false
	}
	switch d.s[d.i] {
	case ',':
		d.i++
		return true, true
	case closer:
		d.i++
		return false, true
	}
	return false, false
}

func (d *jsonDecoder) array(depth int) bool {
	if depth++; depth > jsonMaxNesting {
		return false
	}
	d.i++ // '['
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return true
	}
	for {
		if !d.value(depth) {
			return false
		}
		if more, ok := d.after(']'); !ok {
			return false
		} else if !more {
			return true
		}
	}
}

// number reads the JSON number grammar strictly and, unless syntax, checks
// that encoding/json could convert it (strconv.ParseFloat; out of range is
// its error).
func (d *jsonDecoder) number() bool {
	s, start := d.s, d.i
	i := start
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	exponent := i < len(s) && (s[i] == 'e' || s[i] == 'E')
	if exponent {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	// Without an exponent, a number of at most 300 characters is below
	// 1e300, in float64's range: it needs no conversion.
	if !d.syntax && (exponent || i-start > 300) {
		if _, err := strconv.ParseFloat(s[start:i], 64); err != nil {
			return false
		}
	}
	d.i = i
	return true
}

// string reads a quoted string; without escapes or invalid UTF-8 it is a
// substring of the input, else it is unquoted like encoding/json's unquote.
func (d *jsonDecoder) string() (string, bool) {
	s := d.s
	start := d.i + 1
	i := start
	for i < len(s) {
		// Straight to the byte after the run: a second plainRun there
		// would only find it (a short key took two calls).
		if i = plainRun(s, i, true); i >= len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return s[start:i], true
		case c == '\\':
			return d.unquote(start)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return d.unquote(start)
			}
			i += size
		}
	}
	return "", false
}

func (d *jsonDecoder) unquote(start int) (string, bool) {
	s := d.s
	b := make([]byte, 0, max(32, d.unquoteCap))
	for i := start; i < len(s); {
		if j := plainRun(s, i, true); j > i {
			b = append(b, s[i:j]...)
			i = j
			continue
		}
		c := s[i]
		switch {
		case c == '"':
			d.i = i + 1
			return unsafe.String(unsafe.SliceData(b), len(b)), true // b is ours and never written again
		case c < 0x20:
			return "", false
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				i += 2
			case 'b':
				b, i = append(b, '\b'), i+2
			case 'f':
				b, i = append(b, '\f'), i+2
			case 'n':
				b, i = append(b, '\n'), i+2
			case 'r':
				b, i = append(b, '\r'), i+2
			case 't':
				b, i = append(b, '\t'), i+2
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair when a valid low surrogate follows; otherwise
					// U+FFFD and the next escape is read on its own.
					if r2, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", false
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, unicode.ReplacementChar)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return "", false
}

// skipString moves past a quoted string, checking it exactly as string
// does (escapes, control bytes; any other byte is fine, invalid UTF-8
// included) without building it: validating a 10 MB didOpen must not
// allocate its text.
func (d *jsonDecoder) skipString() bool {
	s := d.s
	for i := d.i + 1; i < len(s); {
		if i = plainRun(s, i, false); i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			d.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(s) {
				return false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(s, i+2); !ok {
					return false
				}
				i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			i++
		}
	}
	return false
}

// plainRun is the end of the run of plain bytes from i: no quote,
// backslash or byte below 0x20, and with ascii no byte from 0x80 either.
// It reads eight bytes at a time and stops at the first byte that is not
// plain (or where fewer than eight are left).
func plainRun(s string, i int, ascii bool) int {
	for i+8 <= len(s) {
		m := special(load8(s, i), ascii)
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load8 is s[i:i+8] as a little-endian word, in one load (the caller
// checked that eight bytes are there).
func load8(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
}

// special has the high bit set in the bytes of w that are a quote, a
// backslash or below 0x20 (with ascii: or from 0x80). Each term is the
// "has a byte below n" trick, (w - n·ones) &^ w & highs; a borrow may set
// bits above a byte that matches, never below, so the lowest set bit is
// exactly the first such byte.
func special(w uint64, ascii bool) uint64 {
	q, b := w^(0x22*ones), w^(0x5C*ones)
	m := (w-0x20*ones)&^w | (q-ones)&^q | (b-ones)&^b
	if ascii {
		m |= w
	}
	return m & highs
}

// hex4 reads the four hex digits of a \u escape at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	r, err := strconv.ParseUint(s[i:i+4], 16, 32) // base 16: hex digits only, no sign, prefix or _
	return rune(r), err == nil
}
