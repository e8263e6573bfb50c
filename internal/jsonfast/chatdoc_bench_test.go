package jsonfast

import (
	"encoding/json"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
)

// The tool inputs of chatdoc's generated 10 MB documents: what this reader
// is measured on against encoding/json (docs/performance.md).
func toolInputs(text string) []string {
	var inputs []string
	for _, u := range chatdoc.ParseOnce(text).ToolUses() {
		inputs = append(inputs, u.RawInput)
	}
	return inputs
}

// Decoding every tool input of the generated 10 MB document.
func BenchmarkDecodeToolInputs(b *testing.B) {
	inputs := toolInputs(chatgen.Generate(10<<20, 1))
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				var m map[string]any
				json.Unmarshal([]byte(s), &m)
			}
		}
	})
	b.Run("jsonfast.DecodeObject", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				DecodeObject(s)
			}
		}
	})
}

// Checking every tool input of the dense 10 MB document (16,340 inputs of
// ~80 bytes) as a parse would (IsObjectWithin) and as the quick schema
// check reads them (Members), on one core.
func BenchmarkCheckToolInputsDense(b *testing.B) {
	inputs := toolInputs(chatgen.GenerateDense(10<<20, 1))
	b.Run("IsObjectWithin", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				if !IsObjectWithin(s, chatdoc.InputMaxNesting) {
					b.Fatalf("%q refused", s)
				}
			}
		}
	})
	b.Run("Members", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				m := NewMembers(s)
				for _, _, ok := m.Next(); ok; _, _, ok = m.Next() {
				}
				if !m.Valid() {
					b.Fatalf("%q refused", s)
				}
			}
		}
	})
}
