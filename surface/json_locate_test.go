package surface

import "testing"

func TestJSONPathSpan(t *testing.T) {
	tests := []struct {
		raw  string
		path []string
		want string // "" = not found
	}{
		{`{"a":1}`, []string{"a"}, `"a"`},
		{` { "x" : "}" , "a\"b" : [1,2] }`, []string{`a"b`}, `"a\"b"`},
		{`{"a":{"b":{"c":null}}}`, []string{"a", "b", "c"}, `"c"`},
		{`{"a":[10, 20, {"k": 1}]}`, []string{"a", "1"}, `20`},
		{`{"a":[10, 20, {"k": 1}]}`, []string{"a", "2", "k"}, `"k"`},
		{`{"a":[10]}`, []string{"a", "5"}, ""},
		{`{"a":[10]}`, []string{"a", "x"}, ""},
		{`{"a":1}`, []string{"b"}, ""},
		{`{"a":1}`, nil, ""},
		{`{"a":`, []string{"a", "b"}, ""},
		{`{"a" 1}`, []string{"a"}, ""},
		{`[`, []string{"0"}, ""},
		{``, []string{"a"}, ""},
		{`"str"`, []string{"a"}, ""},
		{`{"a":"unterminated`, []string{"b"}, ""},
		{`{"\u0061":1}`, []string{"a"}, `"\u0061"`},
	}
	for _, tt := range tests {
		start, end, ok := jsonPathSpan(tt.raw, tt.path)
		got := ""
		if ok {
			got = tt.raw[start:end]
		}
		if got != tt.want {
			t.Errorf("jsonPathSpan(%q, %q) = %q, want %q", tt.raw, tt.path, got, tt.want)
		}
	}
}
