package chatdoc

import (
	"reflect"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
	"github.com/chatls/chatls/internal/jsonfast"
	"github.com/chatls/chatls/internal/workers"
)

// The tests run with the second core the program gives (cmd/chatls), so
// that the two-halves scan is tested; tool inputs are read with
// encoding/json alone, except where a test installs the fast reader.
func init() { Accelerate(Accel{Parallel: workers.Run}) }

// withFastJSON runs f with the program's JSON reader installed.
func withFastJSON(f func()) {
	saved := accel
	defer func() { accel = saved }()
	accel.IsObjectWithin, accel.DecodeObject = jsonfast.IsObjectWithin, jsonfast.DecodeObject
	f()
}

// The program's fast paths change nothing: the same documents, the same
// diagnostics, the same decoded inputs as with the standard library.
func TestAcceleratedParseEqualsPlain(t *testing.T) {
	texts := corpusTexts(t)
	texts["generated"] = chatgen.Generate(300_000, 3)
	texts["dense"] = chatgen.GenerateDense(300_000, 3)
	texts["inputs"] = "@Assistant:\n" +
		"**Tool Use:** `a` (`n1`)\n```json\n{\"x\": 1e400}\n```\n" +
		"**Tool Use:** `a` (`n2`)\n```json\n{\"x\": 1e5, \"y\": [true, false, null]}\n```\n" +
		"**Tool Use:** `a` (`n3`)\n```json\n[1]\n```\n" +
		"**Tool Use:** `a` (`n4`)\n```json\n{\"x\": \"\\ud800\xff\"}\n```\n" +
		"**Tool Use:** `a` (`n5`)\n```json\n{\"x\": }\n```\n"
	for name, text := range texts {
		plain := Parse(text)
		var fast *Document
		withFastJSON(func() { fast = Parse(text) })
		if diff := docDiff(fast, plain); diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
		for i, u := range plain.ToolUses() {
			var got map[string]any
			withFastJSON(func() { got = fast.ToolUses()[i].Input() })
			if !reflect.DeepEqual(got, u.Input()) {
				t.Errorf("%s: input of %s: %v, want %v", name, u.ID, got, u.Input())
			}
		}
	}
}
