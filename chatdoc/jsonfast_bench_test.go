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
