package chatdoc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdDecode is what decodeJSONObject must agree with.
func stdDecode(s string) (map[string]any, bool) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

func checkJSONAgrees(t *testing.T, s string) {
	t.Helper()
	got, ok := decodeJSONObject(s)
	if checked := isJSONObject(s); checked != ok {
		t.Fatalf("%q: isJSONObject says %v, decodeJSONObject %v", s, checked, ok)
	}
	want, wantOK := stdDecode(s)
	if ok && (!wantOK || !reflect.DeepEqual(got, want)) {
		t.Fatalf("%q: decoded %#v (ok), encoding/json gives %#v (ok=%v)", s, got, want, wantOK)
	}
	if !ok && wantOK && !strings.Contains(s, "1e400") {
		t.Fatalf("%q: refused, encoding/json decodes %#v", s, want)
	}
}

func TestDecodeJSONObjectMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":true,"d":false,"e":"x"}`, `{"a":[]}`, `{"a":{}}`,
		`{"a":1,"a":2}`, `{"a":-0.5e-3,"b":0,"c":1E+2,"d":-0}`, `{"s":"\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r"}`,
		`{"lone":"\ud800x","pair":"\ud800\udc00","bad":"\ud800\u0041"}`, "{\"inv\":\"\xff\xfe\",\"k\xc3\":1}",
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":tru}`, `{"a":truex}`, `{"a":1,}`, `{,}`,
		`{"a" 1}`, `{"a":1}x`, `[1]`, `null`, `"x"`, ``, `{"a":"x` + "\n" + `"}`, `{"a":"\x"}`, `{"a":"\u12"}`,
		`{"a":1e400}`, "\ufeff{}", `{"a":[1 2]}`, `{"a":{"b":}}`, `{'a':1}`, "{\"a\":\"\x7f\"}",
	} {
		checkJSONAgrees(t, s)
	}
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + "}" }
	if _, ok := decodeJSONObject(deep(10000)); !ok {
		t.Fatal("10000 levels refused")
	}
	checkJSONAgrees(t, deep(10001))
}

func FuzzDecodeJSONObject(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"\u00e9"}],"c":null}`, `{"x":1e5,"y":"\ud800"}`, "{\"a\":\"\xff\"}"} {
		f.Add(s)
	}
	for _, text := range corpusTexts(f) {
		d := Parse(text)
		for _, u := range d.ToolUses() {
			f.Add(u.RawInput)
		}
	}
	f.Fuzz(func(t *testing.T, s string) { checkJSONAgrees(t, s) })
}

func BenchmarkDecodeToolInputs(b *testing.B) {
	d := Parse(bench10MB())
	var inputs []string
	for _, u := range d.ToolUses() {
		inputs = append(inputs, u.RawInput)
	}
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				stdDecode(s)
			}
		}
	})
	b.Run("decodeJSONObject", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				decodeJSONObject(s)
			}
		}
	})
}
