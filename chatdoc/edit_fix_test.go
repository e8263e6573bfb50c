package chatdoc

import (
	"strings"
	"testing"
)

const oneCall = "@Assistant:\n**Tool Use:** `bash` (`x`)\n```json\n{}\n```\n@You:\n"

// A suffix without a status word reads as pending, so it must be possible
// to approve it: reading and writing agree.
func TestSetStatusSuffixWithoutStatusWord(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{"**Tool Result:** `x` (sandbox=false)", "**Tool Result:** `x` (status=approved sandbox=false)"},
		{"**Tool Result:** `x` ()", "**Tool Result:** `x` (approved)"},
		{"**Tool Result:** `x` ( )", "**Tool Result:** `x` (approved)"},
		{"**Tool Result:** `x` (status= k=v)", "**Tool Result:** `x` (status=approved k=v)"},
	} {
		d := Parse(oneCall + c.header + "\n```\n```\n")
		if r := d.ToolResult("x"); r.Status != StatusPending || r.Dialect != DialectSuffix {
			t.Fatalf("%q read as %q/%q", c.header, r.Status, r.Dialect)
		}
		edits, err := SetStatus(d, "x", StatusApproved)
		if err != nil {
			t.Fatalf("%q: %v", c.header, err)
		}
		got := Parse(ApplyEdits(d.Text(), edits))
		r := got.ToolResult("x")
		if r.Status != StatusApproved || got.Slice(r.HeaderSpan.Start, r.HeaderSpan.End) != c.want {
			t.Fatalf("%q became %q (%s)", c.header, got.Slice(r.HeaderSpan.Start, r.HeaderSpan.End), r.Status)
		}
	}
	// Only extra tokens: pending like a fence without status=, no warning.
	if d := Parse(oneCall + "**Tool Result:** `x` (sandbox=false)\n```\n```\n"); len(d.Diagnostics()) != 0 {
		t.Fatalf("diagnostics %v", d.Diagnostics())
	}
}

// An `(error)` result is finished: SetStatus must not turn it back into a
// placeholder, in any dialect.
func TestSetStatusRefusesFinishedResults(t *testing.T) {
	for _, result := range []string{
		"**Tool Result:** `x` (error)\n```\nboom\n```\n",
		"**Tool Result:** `x` (status=error)\n```\nboom\n```\n",
		"**Tool Result:** `x`\n```flemma:tool status=error\nboom\n```\n",
		"**Tool Result:** `x`\n```flemma:error\nboom\n```\n",
		"**Tool Result:** `x`\n```\nfine\n```\n",
	} {
		d := Parse(oneCall + result)
		for _, st := range []Status{StatusApproved, StatusPending, StatusRejected} {
			if edits, err := SetStatus(d, "x", st); err == nil || edits != nil {
				t.Errorf("%q -> %s: edits %v, err %v", result, st, edits, err)
			}
		}
	}
}

// Result content round-trips exactly (apart from line endings converted to
// the document's), also when it ends with a lone `\r`.
func TestReplaceWithResultRoundTrip(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n"} {
		doc := strings.ReplaceAll(oneCall+"\n**Tool Result:** `x`\n\n```flemma:tool status=pending\n```\n", "\n", nl)
		d := Parse(doc)
		for _, content := range []string{"x\r", "a\rb\r", "\r", "x\r\r", "\n", "\n\n", "  ", "@You:\n```", "````a", "ends\r\n", "plain"} {
			edits, err := ReplaceWithResult(d, "x", content, false)
			if err != nil {
				t.Fatal(err)
			}
			got := Parse(ApplyEdits(d.Text(), edits)).ToolResult("x")
			if want := normalizeNewlines(content, nl); got == nil || got.Content != want || got.Status != StatusDone {
				t.Errorf("nl %q: content %q came back as %+v, want %q", nl, content, got, want)
			}
		}
	}
}

// SPEC §1: each placeholder is preceded by a blank line — also one written
// before an existing result that sits right under the @You: marker.
func TestInsertPlaceholderBeforeResultUnderMarker(t *testing.T) {
	text := "@Assistant:\n**Tool Use:** `a` (`1`)\n```json\n{}\n```\n**Tool Use:** `a` (`2`)\n```json\n{}\n```\n" +
		"@You:\n**Tool Result:** `2`\n```\nok\n```\n"
	for _, dialect := range []Dialect{DialectFence, DialectSuffix, DialectLegacy} {
		d := Parse(text)
		edits, err := InsertPlaceholders(d, []PlaceholderRequest{{ID: "1"}}, dialect)
		if err != nil {
			t.Fatal(err)
		}
		got := ApplyEdits(text, edits)
		if !strings.Contains(got, "@You:\n\n**Tool Result:** `1`") || !strings.Contains(got, "```\n\n**Tool Result:** `2`\n") {
			t.Fatalf("%s:\n%s", dialect, got)
		}
		if ids := Parse(got).ToolResults(); len(ids) != 2 || ids[0].ID != "1" || ids[1].ID != "2" {
			t.Fatalf("results %v", ids)
		}
	}
	// With text between the marker and the result, one blank line is enough.
	text2 := strings.Replace(text, "@You:\n", "@You:\nnote\n\n", 1)
	edits, _ := InsertPlaceholders(Parse(text2), []PlaceholderRequest{{ID: "1"}}, DialectFence)
	if got := ApplyEdits(text2, edits); !strings.Contains(got, "note\n\n**Tool Result:** `1`\n") {
		t.Fatalf("%s", got)
	}
}
