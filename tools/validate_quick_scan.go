package tools

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// quickScan reads JSON text strictly for quickSchema: anything it does not
// accept (a syntax error, a number out of range, nesting past maxQuickDepth)
// makes the quick check unsure, never wrong.
type quickScan struct {
	s string
	i int
}

// maxQuickDepth bounds the nesting the scan follows inside a value; deeper
// inputs are the full validator's.
const maxQuickDepth = 64

func (q *quickScan) space() {
	for q.i < len(q.s) {
		switch q.s[q.i] {
		case ' ', '\t', '\n', '\r':
			q.i++
		default:
			return
		}
	}
}

func (q *quickScan) take(c byte) bool {
	if q.i < len(q.s) && q.s[q.i] == c {
		q.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (q *quickScan) end() bool {
	q.space()
	return q.i == len(q.s)
}

// plainString reads a string without escapes and of valid UTF-8, which
// decodes to exactly its bytes (an object key, here).
func (q *quickScan) plainString() (string, bool) {
	start := q.i
	if !q.str() {
		return "", false
	}
	raw := q.s[start+1 : q.i-1]
	return raw, isPlainString(raw)
}

func isPlainString(raw string) bool {
	return !strings.Contains(raw, `\`) && utf8.ValidString(raw)
}

// str reads a quoted string with valid escapes.
func (q *quickScan) str() bool {
	if !q.take('"') {
		return false
	}
	s := q.s
	for q.i < len(s) {
		c := s[q.i]
		switch {
		case c == '"':
			q.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if q.i+1 >= len(s) {
				return false
			}
			switch s[q.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				q.i += 2
			case 'u':
				if q.i+6 > len(s) {
					return false
				}
				if _, err := strconv.ParseUint(s[q.i+2:q.i+6], 16, 16); err != nil {
					return false
				}
				q.i += 6
			default:
				return false
			}
		default:
			q.i++
		}
	}
	return false
}

// valueKind reads one value and names its kind: kindInteger for a number
// written without fraction or exponent, kindNumber for any other number.
func (q *quickScan) valueKind() (kindSet, bool) {
	if q.i >= len(q.s) {
		return 0, false
	}
	switch c := q.s[q.i]; {
	case c == '"':
		return kindString, q.str()
	case c == '-' || c >= '0' && c <= '9':
		return q.number()
	case c == '{':
		return kindObject, q.skipValue(0)
	case c == '[':
		return kindArray, q.skipValue(0)
	}
	for _, lit := range [...]struct {
		text string
		kind kindSet
	}{{"true", kindBoolean}, {"false", kindBoolean}, {"null", kindNull}} {
		if strings.HasPrefix(q.s[q.i:], lit.text) {
			q.i += len(lit.text)
			return lit.kind, true
		}
	}
	return 0, false
}

// number reads the JSON number grammar; a number strconv.ParseFloat
// refuses (out of range) fails, as the input's decoding would.
func (q *quickScan) number() (kindSet, bool) {
	s, start := q.s, q.i
	digits := func() bool {
		from := q.i
		for q.i < len(s) && s[q.i] >= '0' && s[q.i] <= '9' {
			q.i++
		}
		return q.i > from
	}
	q.take('-')
	if q.take('0') {
		if q.i < len(s) && s[q.i] >= '0' && s[q.i] <= '9' {
			return 0, false
		}
	} else if !digits() {
		return 0, false
	}
	kind := kindInteger
	if q.take('.') {
		if !digits() {
			return 0, false
		}
		kind = kindNumber
	}
	if q.take('e') || q.take('E') {
		if !q.take('+') {
			q.take('-')
		}
		if !digits() {
			return 0, false
		}
		kind = kindNumber
	}
	if _, err := strconv.ParseFloat(s[start:q.i], 64); err != nil {
		return 0, false
	}
	return kind, true
}

// skipValue reads any value, objects and arrays to maxQuickDepth.
func (q *quickScan) skipValue(depth int) bool {
	if q.i >= len(q.s) {
		return false
	}
	open := q.s[q.i]
	if open != '{' && open != '[' {
		_, ok := q.valueKind()
		return ok
	}
	if depth++; depth > maxQuickDepth {
		return false
	}
	q.i++
	closer := byte('}')
	if open == '[' {
		closer = ']'
	}
	q.space()
	if q.take(closer) {
		return true
	}
	for {
		q.space()
		if open == '{' {
			if !q.str() {
				return false
			}
			if q.space(); !q.take(':') {
				return false
			}
			q.space()
		}
		if !q.skipValue(depth) {
			return false
		}
		q.space()
		if q.take(closer) {
			return true
		}
		if !q.take(',') {
			return false
		}
	}
}
