package chatdoc

import "testing"

// A placeholder whose status the user started typing (`status=` with no
// value) gets its value filled in, not a second status token.
func TestSetStatusFillsEmptyStatusToken(t *testing.T) {
	for _, c := range []struct{ opener, want string }{
		{"```flemma:tool status=", "```flemma:tool status=approved"},
		{"```flemma:tool status= sandbox=false", "```flemma:tool status=approved sandbox=false"},
		{"```flemma:tool", "```flemma:tool status=approved"},
		{"```flemma:tool mystatus=", "```flemma:tool status=approved mystatus="},
	} {
		text := "@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\n@You:\n\n**Tool Result:** `t1`\n\n" + c.opener + "\n```\n"
		doc := Parse(text)
		edits, err := SetStatus(doc, "t1", StatusApproved)
		if err != nil {
			t.Fatalf("%q: %v", c.opener, err)
		}
		got := Parse(ApplyEdits(text, edits))
		r := got.ToolResult("t1")
		if r == nil || r.Status != StatusApproved {
			t.Fatalf("%q: status after edit = %+v", c.opener, r)
		}
		if line := got.Slice(r.Fence.OpenerSpan().Start, r.Fence.OpenerSpan().End); line != c.want {
			t.Errorf("%q: opener became %q, want %q", c.opener, line, c.want)
		}
	}
}
