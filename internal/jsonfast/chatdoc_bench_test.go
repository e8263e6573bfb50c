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

// Checking every tool input of the dense 10 MB document (16,340 inputs of
// ~80 bytes) as the quick schema check reads them (Members), and as
// encoding/json.Valid does, on one core.
func BenchmarkCheckToolInputsDense(b *testing.B) {
	inputs := toolInputs(chatgen.GenerateDense(10<<20, 1))
	b.Run("encoding/json.Valid", func(b *testing.B) {
		for b.Loop() {
			for _, s := range inputs {
				if !json.Valid([]byte(s)) {
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
