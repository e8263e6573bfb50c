package jsonfast

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var validSeeds = []string{
	``, ` `, `1`, `-0.5e-3`, `1e400`, `01`, `1.`, `"x"`, `"\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r"`, `"\ud800x"`,
	"\"\xff\xfe\"", "\"a\x01\"", `"\x"`, `"\u12"`, `"\u12g4"`, `[1,2,{"a":null}]`, `[1 2]`, `{"a":1,}`,
	`{"a":1}x`, `{"a":1} `, "\ufeff{}", `{'a':1}`, `true`, `tru`, `nullx`, `{"text":"abc","t":{"text":"\\"}}`,
	`{"Text":"a","text":"b","text":1}`, `"` + strings.Repeat("plain text, ", 40) + `"`,
	`"` + strings.Repeat(`quote \" and \\ back`, 30) + `"`, `"é` + strings.Repeat("x", 20) + `"`,
}

// deepSeeds are at and past encoding/json's nesting limit (too slow to
// fuzz from).
var deepSeeds = []string{
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// Valid and encoding/json.Valid agree on every text.
func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, s := range append(validSeeds, deepSeeds...) {
		checkValidAgrees(t, s)
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add(s)
	}
	for _, s := range corpusInputs(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkValidAgrees(t, s)
		checkUnquoteAgrees(t, `"`+s+`"`)
		checkNamedStrings(t, s)
	})
}

func checkValidAgrees(t *testing.T, s string) {
	t.Helper()
	if got, want := Valid(s), json.Valid([]byte(s)); got != want {
		t.Fatalf("%q: Valid says %v, encoding/json %v", s, got, want)
	}
}

// checkUnquoteAgrees: Unquote of a string token gives what json.Unmarshal
// into a string gives, and refuses what it refuses.
func checkUnquoteAgrees(t *testing.T, token string) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal([]byte(token), &want)
	got, ok := Unquote(token)
	if ok != (wantErr == nil) || ok && got != want {
		t.Fatalf("%q: Unquote %q (%v), encoding/json %q (%v)", token, got, ok, want, wantErr)
	}
	if ok && utf8.ValidString(token) && len(got) > unquotedBound(token) {
		t.Fatalf("%q: decodes to %d bytes, more than its bound %d", token, len(got), unquotedBound(token))
	}
}

// A long text with many escapes decodes into a string that does not keep
// the escaped length alive: the editor's whole document arrives this way
// and lives as long as the session.
func TestUnquotedLongTextHoldsItsOwnLength(t *testing.T) {
	token := `"` + strings.Repeat(`line\n`, 200_000) + `"` // 1.2 MB escaped, 1.0 MB decoded
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, ok := Unquote(token)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if !ok || len(s) != 1_000_000 || s[:5] != "line\n" {
		t.Fatalf("Unquote: %v, %d bytes", ok, len(s))
	}
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 1_050_000 {
		t.Fatalf("the decoded 1,000,000 bytes hold %d bytes of heap", held)
	}
	runtime.KeepAlive(s)
	runtime.KeepAlive(token)
}

// The bound is at least the decoded length, escaped backslashes, \u
// escapes and surrogate pairs included, in long tokens as in short.
func TestUnquotedBoundHoldsForEscapes(t *testing.T) {
	for _, s := range []string{``, `plain`, `a\nb\tc\"d\\e\/f\bg\fh\ri`, `\\\\n\\n\n`, `\u00e9\u4e2d\ud83d\ude00`, `\ud800x`,
		`\ud800\u0041`, `\udc00\ud800`, "é中😀", strings.Repeat(`\\x\u00e9\n\ud83d\ude00`, boundCapFrom/20)} {
		checkUnquoteAgrees(t, `"`+s+`"`)
	}
}

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, s := range validSeeds {
		checkUnquoteAgrees(t, s)
		checkUnquoteAgrees(t, `"`+s+`"`)
	}
}

// checkNamedStrings: EachNamedString's verdict is Valid's, and it reports
// exactly the string values of the members named "text", in order, as
// encoding/json's token stream sees them.
func checkNamedStrings(t *testing.T, s string) {
	t.Helper()
	var got []string
	ok := EachNamedString(s, "text", func(start, end int) {
		v, uok := Unquote(s[start:end])
		if !uok {
			t.Fatalf("%q: reported span %q is no string token", s, s[start:end])
		}
		got = append(got, v)
	})
	if ok != json.Valid([]byte(s)) {
		t.Fatalf("%q: EachNamedString says %v, encoding/json.Valid the opposite", s, ok)
	}
	if !ok {
		return
	}
	if want := namedStringsByTokens(s, "text"); !slices.Equal(got, want) {
		t.Fatalf("%q: reported %q, want %q", s, got, want)
	}
}

// namedStringsByTokens walks encoding/json's tokens: the string values
// that follow the key in an object.
func namedStringsByTokens(s, key string) []string {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	var out []string
	type frame struct{ object, wantKey bool }
	var stack []frame
	lastKey := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		top := len(stack) - 1
		isKey := top >= 0 && stack[top].object && stack[top].wantKey
		if top >= 0 && stack[top].object {
			stack[top].wantKey = !stack[top].wantKey
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		case string:
			if isKey {
				lastKey = v
				continue
			}
			if top >= 0 && stack[top].object && lastKey == key {
				out = append(out, v)
			}
		}
	}
}

func TestEachNamedString(t *testing.T) {
	for _, s := range validSeeds {
		checkNamedStrings(t, s)
	}
	s := `{"textDocument":{"uri":"file:///a","text":"a\"b","version":1},"contentChanges":[{"text":"x"},{"Text":"y"},{"text":2}]}`
	var spans []string
	EachNamedString(s, "text", func(start, end int) { spans = append(spans, s[start:end]) })
	if want := []string{`"a\"b"`, `"x"`}; !slices.Equal(spans, want) {
		t.Fatalf("spans %q, want %q", spans, want)
	}
}

// special's lowest set bit is the first byte that is a quote, a backslash,
// below 0x20 (or, with ascii, from 0x80), byte by byte, for words built
// from the bytes around those edges.
func TestSpecialFindsTheFirstSpecialByte(t *testing.T) {
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0x81, 0xa2, 0xdc, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		var w uint64
		var bs [8]byte
		for k := range bs {
			bs[k] = edges[rng.IntN(len(edges))]
			w |= uint64(bs[k]) << (8 * k)
		}
		for _, ascii := range []bool{false, true} {
			want := 8
			for k, c := range bs {
				if c == '"' || c == '\\' || c < 0x20 || ascii && c >= 0x80 {
					want = k
					break
				}
			}
			got := 8
			if m := special(w, ascii); m != 0 {
				got = bits.TrailingZeros64(m) >> 3
			}
			if got != want {
				t.Fatalf("% x (ascii %v): first special byte %d, want %d", bs, ascii, got, want)
			}
		}
	}
}
