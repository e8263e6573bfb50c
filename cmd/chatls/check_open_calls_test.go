package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// The open-calls line of a document with thousands of calls (looked up in
// two halves) counts and places the unanswered ones as one pass would:
// whether they are in the first half, the second or both.
func TestOpenCallsLineOfManyCalls(t *testing.T) {
	for _, unanswered := range [][]int{{4500, 4900}, {10, 4900}, {3}, {}} {
		var b strings.Builder
		skip := map[int]bool{}
		for _, i := range unanswered {
			skip[i] = true
		}
		for i := range 5000 {
			fmt.Fprintf(&b, "@Assistant:\n**Tool Use:** `bash` (`t%d`)\n```json\n{\"command\":\"true\"}\n```\n\n", i)
			if !skip[i] {
				fmt.Fprintf(&b, "@You:\n**Tool Result:** `t%d`\n```\nok\n```\n\n", i)
			}
		}
		doc := chatdoc.Parse(b.String())
		count, first := unansweredUses(doc.ToolUses(), doc)
		wantCount, wantFirst := countUnanswered(doc.ToolUses(), doc)
		if count != len(unanswered) || count != wantCount || first != wantFirst {
			t.Fatalf("unanswered %v: count %d first %d; one pass: %d, %d", unanswered, count, first, wantCount, wantFirst)
		}
		if len(unanswered) > 0 && first != doc.ToolUse(fmt.Sprintf("t%d", unanswered[0])).HeaderSpan.Start {
			t.Fatalf("unanswered %v: the first is at %d", unanswered, first)
		}
	}
}
