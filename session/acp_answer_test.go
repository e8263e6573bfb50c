package session

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chatls/chatls/acp"
	"github.com/chatls/chatls/chatdoc"
)

// The agent's turn is only appended to: a Tool Use once it settles, the
// @You: message of a round when a permission is asked, and the result of
// a call whose block is written already as an edit by its ID. The text
// reads back as a Flemma document with every call answered. Its tool
// headers follow the document's header gap (SPEC §1): spaced in a spaced
// document, compact otherwise.
func TestAgentAnswerAppendsAndPlacesResults(t *testing.T) {
	for _, spaced := range []bool{true, false} {
		t.Run(map[bool]string{true: "spaced", false: "compact"}[spaced], func(t *testing.T) { testAgentAnswer(t, spaced) })
	}
}

// compactHeaders is text with no blank line after its tool headers.
var compactHeaders = regexp.MustCompile("(?m)^(\\*\\*Tool (?:Use|Result):\\*\\*.*)\n\n")

func testAgentAnswer(t *testing.T, spaced bool) {
	a := newAgentAnswer("hi\n", spaced)
	text := a.begin()
	add := func(u acp.Update) agentOut {
		o := a.add(u)
		text += o.text
		return o
	}
	tool := func(kind acp.UpdateKind, c acp.ToolCall) agentOut { return add(acp.Update{Kind: kind, Tool: &c}) }
	add(acp.Update{Kind: acp.UpdateMessage, Text: "Let me look."})
	if o := tool(acp.UpdateToolCall, acp.ToolCall{ID: "t1", Kind: "execute", Status: "pending", RawInput: json.RawMessage(`{}`)}); o.text != "" {
		t.Errorf("a call's first report is written before it settles: %q", o.text)
	}
	tool(acp.UpdateToolCall, acp.ToolCall{ID: "t1", Kind: "execute", Status: "pending", RawInput: json.RawMessage(`{"command":"ls"}`)})
	o, placed := a.permission(acp.ToolCall{ID: "t1"})
	text += o.text
	if placed {
		t.Error("the call's block was not written yet")
	}
	a.decided("t1")
	if o := tool(acp.UpdateToolCallUpdate, acp.ToolCall{ID: "t1", Status: "completed", Content: []acp.ToolContent{{Text: "a.go"}}}); !cmp.Equal(o.results["t1"].Text, "a.go") || o.text != "" {
		t.Errorf("the result of a placed call: %+v", o)
	}
	add(acp.Update{Kind: acp.UpdateMessage, Text: "Done."})
	tool(acp.UpdateToolCall, acp.ToolCall{ID: "t2", Kind: "read", Status: "in_progress", RawInput: json.RawMessage(`{"path":"a.go"}`)})
	f := a.final("")
	text += f.text
	want := "\n@Assistant:\nLet me look.\n\n**Tool Use:** `execute` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\n@You:\n\n" +
		"**Tool Result:** `t1`\n\n```flemma:tool status=pending\n```\n\n@Assistant:\nDone.\n\n**Tool Use:** `read` (`t2`)\n\n```json\n{\"path\":\"a.go\"}\n```\n\n@You:\n\n" +
		"**Tool Result:** `t2` (error)\n\n```\nThe agent ended its turn without reporting this tool's result.\n```\n"
	if !spaced {
		want = compactHeaders.ReplaceAllString(want, "$1\n")
	}
	if diff := cmp.Diff(want, text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	doc := chatdoc.Parse("@You:\nhi\n" + text)
	if gap := doc.HeaderGap(); (gap != "") != spaced {
		t.Errorf("the text reads back with header gap %q", gap)
	}
	if u := doc.ToolUse("t1"); u == nil || u.Name != "execute" || doc.ToolResult("t1") == nil || doc.ToolResult("t2").Status != "" && doc.ToolResult("t2").IsPlaceholder() {
		t.Errorf("the text does not read back: %+v", doc.ToolUses())
	}
}
