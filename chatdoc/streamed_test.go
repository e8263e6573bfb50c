package chatdoc

import "testing"

// A reading decided on a line's start is the reading of the whole line,
// and a line read as structure is one the parser would take as structure
// in an Assistant message: with one leading space it is text.
func TestReadStreamedLine(t *testing.T) {
	lines := []struct {
		line      string
		structure bool
	}{
		{"@You:", true}, {"@You:  \t", true}, {"@You: approve", true}, {"@Foo:", true}, {"@Foo: x", false},
		{"@You:x", false}, {"@john hi", false}, {"@./notes.txt", false}, {"@", false}, {"@:", false},
		{"**Tool Use:** `bash` (`x`)", true}, {"**Tool Use:** hmm", true}, {"**Tool Result:** `x` (approved)", true},
		{"**Job Result:** `j`", true}, {"**bold**", false}, {"**Tool", false},
		{"<!-- flemma:aborted: x -->", true}, {"<!-- note -->", false},
		{"<thinking>", true}, {"<thinking", true}, {"<thinking redacted>", true}, {"<thinking/>", true}, {"<thinkingx>", false}, {"<b>", false},
		{"plain", false}, {"", false}, {" @You:", false},
	}
	for _, l := range lines {
		whole := ReadStreamedLine(l.line, true)
		if (whole == LineStructure) != l.structure || whole == LineOpen {
			t.Errorf("ReadStreamedLine(%q, true) = %v, want structure %v", l.line, whole, l.structure)
		}
		for i := 0; i <= len(l.line); i++ {
			if r := ReadStreamedLine(l.line[:i], false); r != LineOpen && r != whole {
				t.Errorf("start %q of %q read as %v, the line as %v", l.line[:i], l.line, r, whole)
			}
		}
		doc := "@You:\nq\n\n@Assistant:\n" + l.line + "\n```json\n{}\n```\n"
		parsed := Parse(doc)
		makesStructure := parsed.MessageCount() != 2 || len(parsed.Message(1).ToolUses) > 0 || len(parsed.Message(1).Thinking()) > 0 || parsed.Message(1).Abort() != nil
		if makesStructure && !l.structure {
			t.Errorf("%q makes structure but reads as text", l.line)
		}
		escaped := Parse("@You:\nq\n\n@Assistant:\n " + l.line + "\n```json\n{}\n```\n")
		if escaped.MessageCount() != 2 || len(escaped.Message(1).ToolUses) > 0 || len(escaped.Message(1).Thinking()) > 0 || escaped.Message(1).Abort() != nil {
			t.Errorf("%q with a leading space still makes structure", l.line)
		}
	}
}
