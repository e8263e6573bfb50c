package clip

import (
	"testing"
	"unicode/utf8"
)

func TestRunes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"héllo wörld", 4, "hél…"},
		{"🙂🙂🙂", 2, "🙂…"},
		{"anything", 0, "anything"},
		{"", 3, ""},
	} {
		if got := Runes(c.s, c.n); got != c.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestBytesNeverSplitsACharacter(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: not cut in half
		{"🙂x", 3, "…"},
		{"x", -1, "…"},
	} {
		got := Bytes(c.s, c.n)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Bytes(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestHeadNeverSplitsACharacter(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"aé", 2, "a"},
		{"🙂x", 3, ""},
		{"x", -1, ""},
	} {
		if got := Head(c.s, c.n); got != c.want {
			t.Errorf("Head(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestSpaces(t *testing.T) {
	if got := Spaces("  a\n\tb  c\r\n"); got != "a b c" {
		t.Errorf("got %q", got)
	}
}
