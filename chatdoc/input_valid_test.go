package chatdoc

import (
	"encoding/json"
	"strings"
	"testing"
)

// isObjectWithin's yes is encoding/json's: the input decodes into a map.
// Its no is too, unless the input nests too deep or has a number it leaves
// to the full decode.
func FuzzIsObjectWithin(f *testing.F) {
	for _, s := range []string{`{}`, ` {"a": [1, 2.5, -3e2, "x\"y"]}`, `{"a":1e400}`, `{"a":1` + strings.Repeat("0", 400) + `}`,
		`[]`, `null`, `{"a":}`, `{"a":1}x`, `{"a":"\xff\ud800"}`, `{"t":true,"f":false,"n":null}`, "\t{\r\n}\n", `{"a":01}`,
		`{"a":` + strings.Repeat("[", 101) + strings.Repeat("]", 101) + `}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var obj map[string]any
		decodes := json.Unmarshal([]byte(s), &obj) == nil && obj != nil
		got := isObjectWithin(s, InputMaxNesting)
		deepest, bigNumber := jsonShape(s)
		if got && !decodes || !got && decodes && deepest <= InputMaxNesting && !bigNumber {
			t.Fatalf("isObjectWithin(%q) = %v, encoding/json decodes: %v", s, got, decodes)
		}
	})
}
