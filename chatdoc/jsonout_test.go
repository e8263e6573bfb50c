package chatdoc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// assertValidJSONOutput fails unless `chatls parse --json` output for d is
// valid JSON and valid UTF-8.
func assertValidJSONOutput(t testing.TB, d *Document) []byte {
	t.Helper()
	out, err := ParseJSON(d, d.Diagnostics)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(out) || !json.Valid(out) {
		t.Fatalf("parse --json output is not valid UTF-8 JSON:\n%q", out)
	}
	return out
}

// Invalid UTF-8 in a tool input, an ID and result content: every string in
// the output carries U+FFFD instead (SPEC §1: any bytes, never a crash).
func TestParseJSONInvalidUTF8(t *testing.T) {
	text := "@Assistant:\n**Tool Use:** `bash` (`t\xff1`)\n```json\n{\"command\":\"ls \xff\xfe\",\"k\xc3\":[\"\xe2\x82\"]}\n```\n" +
		"@You:\n**Tool Result:** `t\xff1`\n```\nout \xff\n```\n"
	out := assertValidJSONOutput(t, Parse(text))
	var doc struct {
		Messages []struct {
			ToolUses []struct {
				ID    string
				Input map[string]any
			} `json:"toolUses"`
			ToolResults []struct{ ID, Content string } `json:"toolResults"`
		}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	u := doc.Messages[0].ToolUses[0]
	if u.ID != "t\uFFFD1" || u.Input["command"] != "ls \uFFFD\uFFFD" || u.Input["k\uFFFD"] == nil {
		t.Fatalf("tool use %+v", u)
	}
	if r := doc.Messages[1].ToolResults[0]; r.Content != "out \uFFFD" {
		t.Fatalf("result %+v", r)
	}
}

// Diagnostics come out sorted by position whatever order they are given in.
func TestParseJSONSortsDiagnostics(t *testing.T) {
	d := Parse("@You:\nhi\n@Assistant:\nthere\n")
	late := Diagnostic{Span: Span{12, 14}, Severity: SeverityWarning, Code: "b", Message: "late"}
	early := Diagnostic{Span: Span{0, 2}, Severity: SeverityWarning, Code: "a", Message: "early"}
	out, err := ParseJSON(d, []Diagnostic{late, early})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); strings.Index(s, `"early"`) > strings.Index(s, `"late"`) {
		t.Fatalf("not sorted:\n%s", s)
	}
}
