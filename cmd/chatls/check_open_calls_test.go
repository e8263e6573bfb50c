package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// The open-calls line of a document with thousands of calls counts the
// unanswered ones and places the first, wherever they are; a call answered
// later than in the next message is answered.
func TestOpenCallsLineOfManyCalls(t *testing.T) {
	for _, unanswered := range [][]int{{4500, 4900}, {10, 4900}, {3}, {}} {
		var b, late strings.Builder
		skip := map[int]bool{}
		for _, i := range unanswered {
			skip[i] = true
		}
		for i := range 5000 {
			fmt.Fprintf(&b, "@Assistant:\n**Tool Use:** `bash` (`t%d`)\n```json\n{\"command\":\"true\"}\n```\n\n", i)
			switch {
			case skip[i]:
			case i%7 == 0:
				fmt.Fprintf(&late, "**Tool Result:** `t%d`\n```\nok\n```\n\n", i)
			default:
				fmt.Fprintf(&b, "@You:\n**Tool Result:** `t%d`\n```\nok\n```\n\n", i)
			}
		}
		b.WriteString("@You:\n" + late.String())
		doc := chatdoc.Parse(b.String())
		line := openCallsLine(doc, "big.chat")
		if len(unanswered) == 0 {
			if line != "" {
				t.Fatalf("every call answered (some late), yet: %q", line)
			}
			continue
		}
		at := doc.Lines.Position(doc.ToolUse(fmt.Sprintf("t%d", unanswered[0])).HeaderSpan.Start, chatdoc.UTF8)
		want := fmt.Sprintf("big.chat:%d:%d: info: %s no result yet", at.Line+1, at.Character+1, plural(len(unanswered), "tool call has", "tool calls have"))
		if !strings.HasPrefix(line, want) {
			t.Fatalf("unanswered %v: %q, want it to start with %q", unanswered, line, want)
		}
	}
}
