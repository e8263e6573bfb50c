// Package clip shortens text for one-line displays (hints, progress,
// messages) without cutting a UTF-8 character in half.
package clip

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// Runes shortens s to at most n runes, the last being "…" when cut. n <= 0
// leaves s as it is.
func Runes(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i] + Ellipsis
}

// Bytes shortens s to at most n bytes followed by "…" when cut, at a
// character boundary.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Ellipsis
}

// Head cuts s to at most n bytes at a character boundary, with no mark.
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Spaces collapses every run of white space, line breaks included, into
// one space and trims the ends.
func Spaces(s string) string { return strings.Join(strings.Fields(s), " ") }
