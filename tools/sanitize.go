package tools

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// DocumentText turns raw tool output into text that can live in a .chat
// document: valid UTF-8 (invalid bytes become U+FFFD), terminal escape
// sequences removed, CRLF and lone CR as LF, other control characters except
// tab dropped. Output from `ls --color`, progress bars or `cat binary` then
// stays readable and never breaks the document's encoding.
func DocumentText(raw string) string {
	if isPlainText(raw) {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == 0x1b:
			i = skipEscape(raw, i)
			continue
		case c == '\r':
			if i+1 < len(raw) && raw[i+1] == '\n' {
				i++
				continue
			}
			b.WriteByte('\n')
		case c == '\n' || c == '\t':
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			// dropped: NUL, BEL, backspace and friends have no place in a document
		case c < utf8.RuneSelf:
			b.WriteByte(c)
		default:
			r, size := utf8.DecodeRuneInString(raw[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else if r >= 0x80 && r < 0xa0 { // C1 controls
			} else {
				b.WriteString(raw[i : i+size])
			}
			i += size
			continue
		}
		i++
	}
	return b.String()
}

// isPlainText reports whether raw needs no cleaning (the common, fast path).
// It checks eight bytes at a time: a word without bytes >= 0x7f or < 0x20 is
// plain; only words with one of those (often just a newline) are looked at
// byte by byte.
func isPlainText(raw string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(raw); i += 8 {
		w := binary.LittleEndian.Uint64([]byte(raw[i : i+8]))
		low := (w - 0x20*ones) & ^w & highs // some byte < 0x20
		del := ((w ^ 0x7f*ones) - ones) & ^(w ^ 0x7f*ones) & highs
		if w&highs == 0 && low == 0 && del == 0 {
			continue
		}
		if !plainBytes(raw[i : i+8]) {
			return plainTail(raw[i:])
		}
	}
	return plainTail(raw[i:])
}

// plainBytes reports whether b is ASCII without control characters other than tab and LF.
func plainBytes(b string) bool {
	for j := 0; j < len(b); j++ {
		c := b[j]
		if c >= utf8.RuneSelf || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// plainTail is the slow path from the first byte that is not plain ASCII.
func plainTail(raw string) bool {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c >= utf8.RuneSelf {
			return utf8.ValidString(raw[i:]) && !hasC1(raw[i:])
		}
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func hasC1(s string) bool {
	for _, r := range s {
		if r >= 0x80 && r < 0xa0 {
			return true
		}
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return true
		}
	}
	return false
}

// skipEscape returns the index after the ANSI escape sequence starting at i
// (CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, or a two-byte `ESC x`).
func skipEscape(s string, i int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '[':
		j := i + 2
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		return min(j+1, len(s))
	case ']':
		j := i + 2
		for j < len(s) {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			j++
		}
		return len(s)
	default:
		return i + 2
	}
}
