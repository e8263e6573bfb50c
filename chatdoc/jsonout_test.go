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
	out, err := ParseJSON(d, d.Diagnostics())
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

// Each message lists its thinking blocks (provider and signature null when
// absent) and its abort marker (SPEC §6).
func TestParseJSONThinkingAndAbort(t *testing.T) {
	text := "@You:\nq\n@Assistant:\n<thinking anthropic:signature=\"c2ln\">\nhmm\r\nyes\n</thinking>\n" +
		"<thinking redacted>\nDATA\n</thinking>\n<thinking openai:signature=\"e30=\"/>\n<thinking>\nplain\n</thinking>\n" +
		"partial answer\n<!-- flemma:aborted: Response interrupted by the user. -->\n"
	d := Parse(text)
	out := assertValidJSONOutput(t, d)
	var doc struct {
		Messages []struct {
			Thinking []struct {
				Provider, Signature *string
				Redacted            bool
				Range               jsonRange
			}
			Aborted *struct {
				Message string
				Range   jsonRange
			}
		}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Messages) != 2 || doc.Messages[0].Aborted != nil || len(doc.Messages[0].Thinking) != 0 {
		t.Fatalf("%s", out)
	}
	th := doc.Messages[1].Thinking
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	got := []string{}
	for _, x := range th {
		got = append(got, str(x.Provider)+"|"+str(x.Signature)+"|"+map[bool]string{true: "redacted", false: "-"}[x.Redacted])
	}
	want := "anthropic|c2ln|- <nil>|<nil>|redacted openai|e30=|- <nil>|<nil>|-"
	if strings.Join(got, " ") != want || th[0].Range.Start.Line != 3 || th[0].Range.End.Line != 7 {
		t.Fatalf("thinking %v %+v", got, th)
	}
	if a := doc.Messages[1].Aborted; a == nil || a.Message != "Response interrupted by the user." || a.Range.Start.Line != 15 {
		t.Fatalf("aborted %+v", a)
	}
	m := d.Messages()[1]
	if c := d.ThinkingContent(m.Thinking()[0]); c != "hmm\nyes" || !d.ThinkingClosed(m.Thinking()[0]) {
		t.Fatalf("content %q", c)
	}
	if d.ThinkingContent(m.Thinking()[2]) != "" || !d.ThinkingClosed(m.Thinking()[2]) || d.ThinkingContent(m.Thinking()[1]) != "DATA" {
		t.Fatal("self-closing or redacted content")
	}
	open := Parse("@Assistant:\n<thinking>\nstill\n@You:\nx\n")
	if th := open.Messages()[0].Thinking()[0]; open.ThinkingClosed(th) || open.ThinkingContent(th) != "still" {
		t.Fatalf("unclosed %q", open.ThinkingContent(th))
	}
}
