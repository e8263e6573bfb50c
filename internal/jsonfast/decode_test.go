package jsonfast

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stdDecode is what Members must agree with.
func stdDecode(s string) (map[string]any, bool) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

func TestObjectsMatchEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":true,"d":false,"e":"x"}`, `{"a":[]}`, `{"a":{}}`,
		`{"a":1,"a":2}`, `{"a":-0.5e-3,"b":0,"c":1E+2,"d":-0}`, `{"s":"\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r"}`,
		`{"lone":"\ud800x","pair":"\ud800\udc00","bad":"\ud800\u0041"}`, "{\"inv\":\"\xff\xfe\",\"k\xc3\":1}",
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":tru}`, `{"a":truex}`, `{"a":1,}`, `{,}`,
		`{"a" 1}`, `{"a":1}x`, `[1]`, `null`, `"x"`, ``, `{"a":"x` + "\n" + `"}`, `{"a":"\x"}`, `{"a":"\u12"}`,
		`{"a":1e400}`, "\ufeff{}", `{"a":[1 2]}`, `{"a":{"b":}}`, `{'a':1}`, "{\"a\":\"\x7f\"}",
	} {
		checkMembersAgree(t, s)
	}
	// A check converts only a number with an exponent or of more than 300
	// characters: the longest that still may be out of range, either side.
	for _, digits := range []int{300, 301, 308, 309, 310} {
		n := "1" + strings.Repeat("0", digits-1)
		checkMembersAgree(t, `{"n":`+n+`}`)
		checkMembersAgree(t, `{"n":-`+n+`.5}`)
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"\u00e9"}],"c":null}`, `{"x":1e5,"y":"\ud800"}`, "{\"a\":\"\xff\"}"} {
		f.Add(s)
	}
	for _, input := range corpusInputs(f) {
		f.Add(input)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkMembersAgree(t, s)
	})
}

// corpusInputs are the tool inputs of chatdoc's corpus: the contents of
// its ```json fences.
func corpusInputs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../../chatdoc/testdata/corpus/*.chat")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range strings.Split(string(b), "```json\n")[1:] {
			input, _, _ := strings.Cut(block, "\n```")
			out = append(out, input)
		}
	}
	return out
}
