package chatdoc

import (
	"encoding/json"
	"testing"

	"github.com/chatls/chatls/internal/jsonfast"
)

// Decoding every tool input of the generated 10 MB document.
func BenchmarkDecodeToolInputs(b *testing.B) {
	d := Parse(bench10MB())
	var inputs []string
	for _, u := range d.ToolUses() {
		inputs = append(inputs, u.RawInput)
	}
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
				jsonfast.DecodeObject(s)
			}
		}
	})
}

// Checking every tool input of the dense 10 MB document (16,340 inputs of
// ~80 bytes) as the parse does (IsObjectWithin) and as the quick schema
// check reads them (Members), on one core.
func BenchmarkCheckToolInputsDense(b *testing.B) {
	var inputs []string
	for _, u := range ParseOnce(benchDense10MB()).ToolUses() {
		inputs = append(inputs, u.RawInput)
	}
	b.Run("IsObjectWithin", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				if !jsonfast.IsObjectWithin(s, InputMaxNesting) {
					b.Fatalf("%q refused", s)
				}
			}
		}
	})
	b.Run("Members", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				m := jsonfast.NewMembers(s)
				for _, _, ok := m.Next(); ok; _, _, ok = m.Next() {
				}
				if !m.Valid() {
					b.Fatalf("%q refused", s)
				}
			}
		}
	})
}
