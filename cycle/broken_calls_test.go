package cycle

import (
	"testing"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// Calls that can never run get their error results at once, in call order
// among the placeholders, under autopilot (they arrived in this session)
// and with chatls.advance alike (SPEC §1): invalid JSON (the diagnostic's
// text), a tool chatls does not offer, and IDs used before — in an earlier
// turn, whose result stays the first call's, and twice in one message.
// The policy is asked only about the calls that can run; afterwards the
// document is ready to send and nothing is left to write.
func TestBrokenCallsAnsweredAtOnce(t *testing.T) {
	const opened = "@You:\nplease\n\n@Assistant:\n**Tool Use:** `read` (`t_1`)\n\n```json\n{\"path\":\"a.txt\"}\n```\n\n" +
		"@You:\n\n**Tool Result:** `t_1`\n\n```\nhello\n```\n\nmore\n\n"
	const arrived = "@Assistant:\n**Tool Use:** `bash` (`t_bad`)\n\n```json\n{\"command\": \"ls\n```\n\n" +
		"**Tool Use:** `bash` (`t_1`)\n\n```json\n{\"command\":\"rm -rf ~\"}\n```\n\n" +
		"**Tool Use:** `reed` (`t_unk`)\n\n```json\n{\"path\":\"a.txt\"}\n```\n\n" +
		"**Tool Use:** `read` (`t_x`)\n\n```json\n{\"path\":\"b.txt\"}\n```\n\n" +
		"**Tool Use:** `bash` (`t_x`)\n\n```json\n{\"command\":\"rm -rf ~\"}\n```\n\n@You:\n\n"
	want := opened + "@Assistant:\n**Tool Use:** `bash` (`t_bad`)\n\n```json\n{\"command\": \"ls\n```\n\n" +
		"**Tool Use:** `bash` (`t_1`)\n\n```json\n{\"command\":\"rm -rf ~\"}\n```\n\n" +
		"**Tool Use:** `reed` (`t_unk`)\n\n```json\n{\"path\":\"a.txt\"}\n```\n\n" +
		"**Tool Use:** `read` (`t_x`)\n\n```json\n{\"path\":\"b.txt\"}\n```\n\n" +
		"**Tool Use:** `bash` (`t_x`)\n\n```json\n{\"command\":\"rm -rf ~\"}\n```\n\n@You:\n\n" +
		"**Tool Result:** `t_bad` (error)\n\n```\nFailed to parse tool input: unexpected end of JSON input\n```\n\n" +
		"**Tool Result:** `t_1` (error)\n\n```\nTool use ID t_1 is already used earlier in this conversation; the call was not run.\n```\n\n" +
		"**Tool Result:** `t_unk` (error)\n\n```\nUnknown tool: reed (did you mean read?)\n```\n\n" +
		"**Tool Result:** `t_x`\n\n```flemma:tool status=approved\n```\n\n" +
		"**Tool Result:** `t_x` (error)\n\n```\nTool use ID t_x is already used earlier in this conversation; the call was not run.\n```\n\n"
	for _, mode := range []Mode{{Autopilot: true}, {Force: true}} {
		doc := chatdoc.Parse(opened)
		l := NewLedger(doc)
		doc, _ = appendText(t, l, doc, arrived, mode.Autopilot)
		facts := defaults.facts(nil)
		facts.Decide = func(u *chatdoc.ToolUse) approval.Verdict {
			if u.ID != "t_x" || u.Name != "read" {
				t.Errorf("the policy was asked about %s %s", u.Name, u.ID)
			}
			return approval.Verdict{Decision: approval.Approve}
		}
		facts.Invalid = func(u *chatdoc.ToolUse) string {
			if u.Name == "reed" {
				return UnknownTool(u.Name, "read")
			}
			return ""
		}
		if got := Count(doc, l); got.Ready {
			t.Fatalf("%+v: ready before the broken calls are answered: %+v", mode, got)
		}
		st, invalid, reused := Categorize(doc, l, mode, facts)
		l.Placed(doc, st)
		edits, err := PlaceholderEdits(doc, st, invalid, reused, chatdoc.DialectFence)
		next := apply(t, doc, edits, err)
		if next.Text() != want {
			t.Fatalf("%+v: document\n%s\nwant\n%s", mode, next.Text(), want)
		}
		if r := next.ToolResult("t_1"); r.Content != "hello" {
			t.Fatalf("the first call's result is not the one found by its ID: %+v", r)
		}
		if r := next.ToolResult("t_x"); r.Status != chatdoc.StatusApproved {
			t.Fatalf("t_x's first use does not own its placeholder: %+v", r)
		}
		if len(ReusedIDs(next)) != 0 || len(DuplicateIDs(next)) != 0 {
			t.Fatalf("%+v: still unanswered: %v", mode, ReusedIDs(next))
		}
		st2, invalid2, reused2 := Categorize(next, l, mode, facts)
		if again, _ := PlaceholderEdits(next, st2, invalid2, reused2, chatdoc.DialectFence); len(again) != 0 || len(st2)+len(invalid2)+len(reused2) != 0 {
			t.Fatalf("%+v: categorized again: %v %v %v %v", mode, again, st2, invalid2, reused2)
		}
		if _, _, ok := Gate(next, l, "t_x", facts); !ok {
			t.Errorf("%+v: the approved first use of t_x may not run", mode)
		}
	}
}

// A reused ID that was in the file when it was opened waits for
// chatls.advance like every call there; one that arrives later does not.
func TestReusedIDInTheOpenedFileWaits(t *testing.T) {
	text := conversation([]call{readCall, {"t_read", "bash", `{"command":"ls","timeout":null}`}}, "")
	doc := chatdoc.Parse(text)
	l := NewLedger(doc)
	if _, _, reused := Categorize(doc, l, Mode{Autopilot: true}, defaults.facts(nil)); len(reused) != 0 {
		t.Fatalf("autopilot answered a call of the opened file: %v", reused)
	}
	if _, _, reused := Categorize(doc, l, Mode{Force: true}, defaults.facts(nil)); len(reused) != 1 {
		t.Fatalf("chatls.advance did not answer it: %v", reused)
	}
	doc, _ = appendText(t, l, doc, "\n@Assistant:\n**Tool Use:** `read` (`t_read`)\n\n```json\n{\"path\":\"c\"}\n```\n\n@You:\n", true)
	if _, _, reused := Categorize(doc, l, Mode{Autopilot: true}, defaults.facts(nil)); len(reused) != 1 || reused[0].Message != 3 {
		t.Fatalf("autopilot did not answer the one that arrived: %+v", reused)
	}
}
