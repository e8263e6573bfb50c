package chatdoc

import "testing"

// Decoding every tool input of the generated 10 MB document (what
// ToolUse.Input does for one).
func BenchmarkDecodeToolInputs(b *testing.B) {
	d := Parse(bench10MB())
	var inputs []string
	for _, u := range d.ToolUses() {
		inputs = append(inputs, u.RawInput)
	}
	for b.Loop() {
		for _, s := range inputs {
			DecodeInput(s)
		}
	}
}

// Checking every tool input of the dense 10 MB document (16,340 inputs of
// ~80 bytes) as the parse does, on one core.
func BenchmarkCheckToolInputsDense(b *testing.B) {
	var inputs []string
	for _, u := range ParseOnce(benchDense10MB()).ToolUses() {
		inputs = append(inputs, u.RawInput)
	}
	for b.Loop() {
		for _, s := range inputs {
			if !isObjectWithin(s, InputMaxNesting) {
				b.Fatalf("%q refused", s)
			}
		}
	}
}
