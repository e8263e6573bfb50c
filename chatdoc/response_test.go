package chatdoc

import (
	"strings"
	"testing"
)

// What a response writes reads back as the same message: text, tool uses
// with their IDs and inputs, signed and redacted thinking at the end, the
// abort marker, and an empty @You: to type in. This one is for a document
// with spaced headers (TestResponseToolUsesFollowTheHeaderGap has both).
func TestResponseReadsBack(t *testing.T) {
	question := "@You:\nlist the files\n"
	r := Response{SpacedHeaders: true}
	out := question + r.Start(question)
	out += r.Text("I'll look.")
	out += r.ToolUse("bash", "toolu_01", `{"command":"ls"}`)
	out += r.ToolUse("fs:read_file", "toolu_02", "{\"path\":\"a```b\"}")
	r.Thinking(ResponseThinking{Text: "  The user wants files.\n", Signature: &ThinkingSignature{Provider: "anthropic", Value: "sig=="}})
	r.Thinking(ResponseThinking{Text: "opaque-data", Redacted: true})
	r.Thinking(ResponseThinking{Signature: &ThinkingSignature{Provider: "vertex", Value: "v1"}})
	out += r.End("")
	want := "@You:\nlist the files\n\n@Assistant:\nI'll look.\n\n**Tool Use:** `bash` (`toolu_01`)\n\n```json\n{\"command\":\"ls\"}\n```\n\n" +
		"**Tool Use:** `fs:read_file` (`toolu_02`)\n\n````json\n{\"path\":\"a```b\"}\n````\n\n" +
		"<thinking anthropic:signature=\"sig==\">\nThe user wants files.\n</thinking>\n<thinking redacted>\nopaque-data\n</thinking>\n\n" +
		"<thinking vertex:signature=\"v1\">\n</thinking>\n\n@You:\n\n"
	if out != want {
		t.Fatalf("got\n%q\nwant\n%q", out, want)
	}
	doc := Parse(out)
	if len(doc.Diagnostics()) != 0 {
		t.Errorf("diagnostics: %+v", doc.Diagnostics())
	}
	if len(doc.Messages()) != 3 || doc.Messages()[1].Role != "Assistant" || doc.Messages()[2].Role != "You" {
		t.Fatalf("messages %+v", doc.Messages())
	}
	a := doc.Messages()[1]
	if len(a.ToolUses) != 2 || a.ToolUses[1].Name != "fs:read_file" || a.ToolUses[1].Input()["path"] != "a```b" {
		t.Fatalf("tool uses %+v", a.ToolUses)
	}
	if len(a.Thinking()) != 3 || a.Thinking()[0].Signature().Value != "sig==" || !a.Thinking()[1].Redacted() ||
		doc.ThinkingContent(a.Thinking()[0]) != "The user wants files." || a.Thinking()[2].Signature().Provider != "vertex" {
		t.Fatalf("thinking %+v", a.Thinking())
	}
}

func TestResponseAbortAndHeaders(t *testing.T) {
	for tail, head := range map[string]string{"hi": "\n\n@Assistant:\n", "hi\n": "\n@Assistant:\n", "hi\n\n": "@Assistant:\n"} {
		var r Response
		if got := r.Start(tail); got != head {
			t.Errorf("Start(%q) = %q, want %q", tail, got, head)
		}
	}
	var r Response
	out := "@You:\ngo\n" + r.Start("go\n") + r.Text("Half an ans")
	out += r.End(AbortedByUser)
	if !strings.HasSuffix(out, "Half an ans\n\n<!-- flemma:aborted: Response interrupted by the user. -->\n\n@You:\n\n") {
		t.Fatalf("%q", out)
	}
	doc := Parse(out)
	if a := doc.Messages()[1]; a.Abort() == nil || doc.Slice(a.Abort().Span.Start, a.Abort().Span.End) == "" {
		t.Errorf("abort marker not read back: %+v", a)
	}
	var empty Response
	if got := empty.Start("x\n") + empty.End(""); got != "\n@Assistant:\n\n@You:\n\n" {
		t.Errorf("empty answer: %q", got)
	}
}

// The first lines of an answer as Flemma 0.14 writes them (core.lua's
// on_content and the provider's block prefixes, base.lua
// _get_content_prefix): an answer that starts with a tool use gets a blank
// line after `@Assistant:`; whitespace-only text before the first content
// is not written, though Flemma's provider has counted it, so a block
// after it is separated as after any text; a redacted block first comes
// after a blank line (its prefix is "\n" unless the content so far ends
// with a line ending).
func TestResponseStartsAsFlemma014(t *testing.T) {
	tool := "**Tool Use:** `bash` (`toolu_01`)\n```json\n{}\n```\n"
	for _, c := range []struct {
		name string
		play func(r *Response) string
		want string // after "@Assistant:\n", up to "@You:"
	}{
		{"tool use first", func(r *Response) string { return r.ToolUse("bash", "toolu_01", "{}") },
			"\n" + tool + "\n"},
		{"blank lines, then text", func(r *Response) string { return r.Text("\n\n") + r.Text(" ") + r.Text("Hello") },
			"Hello\n\n"},
		{"blank lines, then a tool use", func(r *Response) string { return r.Text("\n\n") + r.ToolUse("bash", "toolu_01", "{}") },
			"\n" + tool + "\n"},
		{"spaces, then a tool use", func(r *Response) string { return r.Text("  ") + r.ToolUse("bash", "toolu_01", "{}") },
			"\n\n" + tool + "\n"},
		{"text with its own leading newline", func(r *Response) string { return r.Text("\nHi") },
			"\nHi\n\n"},
		{"redacted thinking alone", func(r *Response) string {
			r.Thinking(ResponseThinking{Text: "opaque", Redacted: true})
			return ""
		}, "\n<thinking redacted>\nopaque\n</thinking>\n\n"},
		{"signed thinking alone", func(r *Response) string {
			r.Thinking(ResponseThinking{Text: "plan", Signature: &ThinkingSignature{Provider: "anthropic", Value: "s"}})
			return ""
		}, "<thinking anthropic:signature=\"s\">\nplan\n</thinking>\n\n"},
	} {
		var r Response
		out := "@You:\ngo\n" + r.Start("go\n") + c.play(&r) + r.End("")
		if want := "@You:\ngo\n\n@Assistant:\n" + c.want + "@You:\n\n"; out != want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, out, want)
		}
	}
	var r Response
	r.Start("go\n")
	if r.Text("\n \n"); r.Content() {
		t.Error("whitespace alone counts as content: the empty @Assistant: would stay")
	}
}

// A streamed tool use is written as the document writes its headers
// (SPEC §1 "Compact headers"): right under its header in a document
// without tool headers or with compact ones, after a blank line in one
// with spaced ones; the placeholders that follow take the same shape.
func TestResponseToolUsesFollowTheHeaderGap(t *testing.T) {
	spaced := "@You:\nrun\n\n@Assistant:\n**Tool Use:** `bash` (`a`)\n\n```json\n{}\n```\n\n@You:\n\n**Tool Result:** `a`\n\n```\nok\n```\n\nagain\n"
	compact := strings.ReplaceAll(spaced, ")\n\n```", ")\n```")
	compact = strings.ReplaceAll(compact, "`a`\n\n```", "`a`\n```")
	for _, c := range []struct {
		name, doc, gap string
	}{
		{"no tool headers", "@You:\nrun\n", ""},
		{"compact headers", compact, ""},
		{"spaced headers", spaced, "\n"},
	} {
		doc := Parse(c.doc)
		r := Response{SpacedHeaders: doc.HeaderGap() != ""}
		out := c.doc + r.Start(c.doc) + r.ToolUse("bash", "b", "{}") + r.End("")
		want := c.doc + "\n@Assistant:\n\n**Tool Use:** `bash` (`b`)\n" + c.gap + "```json\n{}\n```\n\n@You:\n\n"
		if out != want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, out, want)
			continue
		}
		after := Parse(out)
		if got := after.HeaderGap(); got != c.gap {
			t.Errorf("%s: the answer leaves the header gap %q, want %q", c.name, got, c.gap)
		}
		if u := after.ToolUse("b"); u == nil || u.Fence == nil {
			t.Errorf("%s: the streamed tool use does not read back: %+v", c.name, u)
		}
	}
}
