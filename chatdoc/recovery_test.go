package chatdoc

import (
	"slices"
	"strings"
	"testing"
)

func diagsWithCode(d *Document, code string) []Diagnostic {
	var out []Diagnostic
	for _, dg := range d.Diagnostics() {
		if dg.Code == code {
			out = append(out, dg)
		}
	}
	return out
}

// SPEC §1: after an error, parsing resumes at the next role marker. An
// unclosed tool-use fence must not swallow the following @You: message.
func TestUnclosedToolUseFenceEndsAtRoleMarker(t *testing.T) {
	text := "@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n\n@You:\n\nthanks\n"
	d := Parse(text)
	checkInvariants(t, d)
	if !slices.Equal(roles(d), []string{"Assistant", "You"}) {
		t.Fatalf("roles %v", roles(d))
	}
	u := d.ToolUse("t1")
	if u == nil || u.Valid() || u.Fence == nil || u.Fence.Closed() {
		t.Fatalf("tool use %+v", u)
	}
	if u.RawInput != "{\"command\":\"ls\"}\n" || u.Span.End != strings.Index(text, "@You:") {
		t.Fatalf("input %q span %v", u.RawInput, u.Span)
	}
	dg := diagsWithCode(d, CodeToolUseUnclosedFence)
	if len(dg) != 1 || dg[0].ToolID != "t1" || dg[0].Severity != SeverityError {
		t.Fatalf("diagnostics %v", d.Diagnostics())
	}
	if got := d.Slice(d.Messages()[1].Span.Start, d.Messages()[1].Span.End); got != "@You:\n\nthanks\n" {
		t.Fatalf("You message %q", got)
	}
}

// A tool-use header inside an unclosed tool-use fence starts the next call:
// the later call is kept (SPEC: "we keep the later calls") and its result is
// not an orphan.
func TestUnclosedToolUseFenceEndsAtToolHeader(t *testing.T) {
	text := "@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n\n" +
		"**Tool Use:** `bash` (`t2`)\n\n```json\n{\"command\":\"pwd\"}\n```\n\n@You:\n\n**Tool Result:** `t2`\n\n```\n/home\n```\n"
	d := Parse(text)
	checkInvariants(t, d)
	if len(d.ToolUses()) != 2 || d.ToolUse("t1").Valid() || !d.ToolUse("t2").Valid() {
		t.Fatalf("tool uses %+v", d.ToolUses())
	}
	if d.ToolUse("t2").Input()["command"] != "pwd" || strings.Contains(d.ToolUse("t1").RawInput, "t2") {
		t.Fatalf("t1 input %q", d.ToolUse("t1").RawInput)
	}
	if len(diagsWithCode(d, CodeOrphanResult)) != 0 || len(diagsWithCode(d, CodeToolUseUnclosedFence)) != 1 {
		t.Fatalf("diagnostics %v", d.Diagnostics())
	}
}

// Result content is verbatim: a role marker inside a closed result fence
// stays content (corpus 05), and an unclosed result fence keeps Flemma's
// reading — it runs to the end — with its error.
func TestResultFenceKeepsMarkerLines(t *testing.T) {
	text := "@Assistant:\n**Tool Use:** `bash` (`t1`)\n```json\n{}\n```\n@You:\n**Tool Result:** `t1`\n```\n@Assistant:\n**Tool Use:** `bash` (`t2`)\n"
	d := Parse(text)
	if len(d.Messages()) != 2 || len(d.ToolUses()) != 1 {
		t.Fatalf("roles %v uses %d", roles(d), len(d.ToolUses()))
	}
	if r := d.ToolResult("t1"); r.Content != "@Assistant:\n**Tool Use:** `bash` (`t2`)" {
		t.Fatalf("content %q", r.Content)
	}
	if len(diagsWithCode(d, CodeResultUnclosedFence)) != 1 {
		t.Fatalf("diagnostics %v", d.Diagnostics())
	}
}

// A plain fence without its closer swallows the later messages, as in
// Flemma: up to the next closer (here the closer of a later tool use) or to
// the end. chatls keeps that reading but says so instead of losing the
// messages silently.
func TestUnclosedPlainFenceWarns(t *testing.T) {
	text := "@You:\nhi\n@Assistant:\n```python\nprint(1)\n@You:\nmore\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n```json\n{\"command\":\"ls\"}\n```\n"
	d := Parse(text)
	if !slices.Equal(roles(d), []string{"You", "Assistant"}) || len(d.ToolUses()) != 0 {
		t.Fatalf("roles %v", roles(d))
	}
	dg := diagsWithCode(d, CodeRoleMarkerInFence)
	if len(dg) != 1 || dg[0].Severity != SeverityWarning || d.Slice(dg[0].Span.Start, dg[0].Span.End) != "@You:" ||
		!strings.HasPrefix(dg[0].Message, "This role marker is inside a code fence, so no message starts here") {
		t.Fatalf("diagnostics %+v", d.Diagnostics())
	}

	// No closer at all: the fence runs to the end of the document.
	d = Parse("@You:\nhi\n@Assistant:\n```python\nprint(1)\n")
	dg = diagsWithCode(d, CodeUnclosedFence)
	if len(d.Diagnostics()) != 1 || len(dg) != 1 || dg[0].Severity != SeverityWarning || d.Slice(dg[0].Span.Start, dg[0].Span.End) != "```python" ||
		dg[0].Message != "Code fence is not closed (add a line of ```); the rest of the document is inside it" {
		t.Fatalf("diagnostics %+v", d.Diagnostics())
	}

	// Closed fences without markers get no warning; nor do result fences,
	// whose content is verbatim (corpus 05).
	for _, text := range []string{"@You:\n```\nx\n```\n", "@Assistant:\n**Tool Use:** `a` (`1`)\n```json\n{}\n```\n@You:\n**Tool Result:** `1`\n```\n@Assistant:\n```\n"} {
		if d := Parse(text); len(d.Diagnostics()) != 0 {
			t.Fatalf("%q: %v", text, d.Diagnostics())
		}
	}
}

// An unclosed frontmatter stays "no frontmatter" (SPEC §1) and, like any
// fence before the first role marker, hides nothing: Flemma ignores the text
// before the first marker and reads the messages. The warning says why the
// settings are not applied.
func TestUnclosedFrontmatterWarns(t *testing.T) {
	d := Parse("```lua\nflemma.opt.x = 1\n@You:\nhi\n")
	if d.Frontmatter != nil || len(d.Messages()) != 1 || d.Messages()[0].Role != "You" {
		t.Fatalf("frontmatter %+v messages %d", d.Frontmatter, len(d.Messages()))
	}
	if len(d.Diagnostics()) != 1 || d.Diagnostics()[0].Code != CodeUnclosedFence || d.Diagnostics()[0].Span != (Span{0, 6}) ||
		d.Diagnostics()[0].Message != "Frontmatter is not closed (add a line of ```), so it is ordinary text before the first role marker and is ignored" {
		t.Fatalf("diagnostics %+v", d.Diagnostics())
	}
	// An unclosed fence later in the text before the first marker: ignored
	// text like the rest of the preamble, the message is read.
	d = Parse("notes\n```\n@You:\nhi\n")
	if len(d.Diagnostics()) != 0 || len(d.Messages()) != 1 {
		t.Fatalf("diagnostics %+v messages %d", d.Diagnostics(), len(d.Messages()))
	}
}

// Opening and closing these fences by typing, one character at a time,
// gives what a full parse gives at every step.
func TestIncrementalFenceRecovery(t *testing.T) {
	base := "preface\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n@You:\nok\n" +
		"@Assistant:\n```python\nx\n@You:\n\n**Tool Result:** `t1`\n\n```\n@You:\n```\n@You:\nend\n"
	steps := []struct {
		at  string // insert before the first occurrence
		ins string
	}{
		{"@You:\nok", "```\n"},   // closes the tool-use fence
		{"@You:\nend", "```\n"},  // closes the python fence late
		{"@Assistant:\n**", "`"}, // a stray backtick
		{"preface", "```\n"},     // a fence before the first marker
	}
	for _, tiny := range []bool{false, true} {
		run := func() {
			d := Parse(base)
			for _, st := range steps {
				at := strings.Index(d.Text(), st.at)
				for i := range st.ins {
					d = d.Replace(Span{at + i, at + i}, st.ins[i:i+1])
					assertSameDoc(t, d, Parse(d.Text()))
				}
			}
			for d.Len() > 0 { // delete from the front, a byte at a time
				d = d.Replace(Span{0, min(3, d.Len())}, "")
				assertSameDoc(t, d, Parse(d.Text()))
			}
		}
		if tiny {
			withTinyPieces(run)
		} else {
			run()
		}
	}
}
