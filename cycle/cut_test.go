package cycle

import (
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// An answer a crash cut off (no abort marker, no @You: after it) is closed
// by the next step: what it left open is closed, then the marker and
// @You:; its unfinished tool uses then get aborted placeholders. An answer
// whose calls are complete is not cut (phase 1 answers them), nor one
// chatls ended.
func TestCutAnswer(t *testing.T) {
	const q = "@You:\nlist\n\n@Assistant:\n"
	const closing = "<!-- flemma:aborted: Response interrupted: chatls stopped while it streamed. -->\n\n@You:\n\n"
	for _, tc := range []struct {
		name, doc, want string // want "" = not cut
		aborted         string // the ID that gets an aborted placeholder
	}{
		{name: "cut mid-line", doc: q + "Half an ans", want: q + "Half an ans\n\n" + closing},
		{name: "cut after a line", doc: q + "A line.\n", want: q + "A line.\n\n" + closing},
		{name: "cut after the marker", doc: q, want: q + "\n" + closing},
		{name: "cut inside a code fence", doc: q + "Look:\n````go\nfunc f() {\n", want: q + "Look:\n````go\nfunc f() {\n````\n\n" + closing},
		{name: "cut inside a tool use", doc: q + "**Tool Use:** `bash` (`t_1`)\n\n```json\n{\"command\": \"ls",
			want: q + "**Tool Use:** `bash` (`t_1`)\n\n```json\n{\"command\": \"ls\n```\n\n" + closing, aborted: "t_1"},
		{name: "cut after a tool use, in text", doc: q + "**Tool Use:** `bash` (`t_1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\nAnd th",
			want: q + "**Tool Use:** `bash` (`t_1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\nAnd th\n\n" + closing, aborted: "t_1"},
		{name: "cut inside thinking", doc: q + "Hi.\n<thinking>\nhmm", want: q + "Hi.\n<thinking>\nhmm\n</thinking>\n\n" + closing},
		{name: "crlf", doc: "@You:\r\nlist\r\n\r\n@Assistant:\r\nHalf", want: "@You:\r\nlist\r\n\r\n@Assistant:\r\nHalf\r\n\r\n<!-- flemma:aborted: Response interrupted: chatls stopped while it streamed. -->\r\n\r\n@You:\r\n\r\n"},
		{name: "complete calls are categorized instead", doc: q + "**Tool Use:** `bash` (`t_1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\n"},
		{name: "an answer chatls ended", doc: q + "Done.\n\n@You:\n\n"},
		{name: "an answer chatls aborted", doc: q + "Ha\n\n<!-- flemma:aborted: Response interrupted by the user. -->\n"},
		{name: "a question", doc: "@You:\nlist\n"},
		{name: "nothing", doc: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := chatdoc.Parse(tc.doc)
			e, cut := CutAnswer(doc)
			if !cut {
				if tc.want != "" {
					t.Fatalf("not recognised as cut:\n%s", tc.doc)
				}
				return
			}
			got := chatdoc.ApplyEdits(tc.doc, []chatdoc.TextEdit{e})
			if got != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tc.want)
			}
			next := chatdoc.Parse(got)
			if _, again := CutAnswer(next); again {
				t.Fatal("closed twice")
			}
			ms := next.Messages()
			if a := ms[len(ms)-2]; a.Role != "Assistant" || a.Abort() == nil || a.Abort().Message != TextStoppedStreaming || ms[len(ms)-1].Role != "You" {
				t.Fatalf("messages %+v", ms)
			}
			st, _, _ := Categorize(next, NewLedger(doc), Mode{Force: true}, defaults.facts(nil))
			want := ""
			if tc.aborted != "" {
				want = tc.aborted + "=aborted"
			}
			if got := statuses(st); got != want {
				t.Fatalf("categorized %q, want %q", got, want)
			}
		})
	}
}
