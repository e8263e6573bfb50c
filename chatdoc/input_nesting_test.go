package chatdoc

import (
	"strings"
	"testing"
)

// An input is refused for its nesting when it goes past InputMaxNesting,
// valid JSON or not; at the limit it is an ordinary object.
func TestInputNestingLimit(t *testing.T) {
	nested := func(depth int, closed bool) string {
		in := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}"
		if !closed {
			in = in[:len(in)-depth]
		}
		return in
	}
	deep := "the input nests deeper than 100 levels"
	for _, tc := range []struct {
		input, wantError string
	}{
		{nested(InputMaxNesting, true), ""},
		{nested(InputMaxNesting+1, true), deep},
		{nested(InputMaxNesting+1, false), deep},
		{nested(5, false), "unexpected end of JSON input"},
		{`[1]`, "expected a JSON object, got an array"},
	} {
		doc := Parse("@Assistant:\n**Tool Use:** `bash` (`t1`)\n```json\n" + tc.input + "\n```\n")
		u := doc.ToolUse("t1")
		if u == nil || u.InputError != tc.wantError {
			t.Fatalf("input of %d bytes: error %q, want %q", len(tc.input), u.InputError, tc.wantError)
		}
	}
}
