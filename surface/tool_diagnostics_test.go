package surface

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
)

var _ ToolInfo = (*tools.Registry)(nil)

func TestToolDiagnosticsMalformed(t *testing.T) {
	doc := corpus(t, "08-malformed.chat")
	var got []string
	for _, d := range toolDiagnostics(doc, newFakeRegistry()) {
		got = append(got, d.Code+" "+d.ToolID+" "+strings.ReplaceAll(spanText(doc, d.Span), "\n", "⏎")+" | "+d.Message)
	}
	want := []string{
		"unknown-tool toolu_unknown reed | Unknown tool `reed`; did you mean `read`?",
		"schema-violation toolu_schema {\"path\":\"main.go\",\"oldText\":42} | Invalid input for `edit`: newText: missing required property",
		"schema-violation toolu_schema \"oldText\" | Invalid input for `edit`: oldText: expected string, got number",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestToolDiagnosticsMCP(t *testing.T) {
	doc := corpus(t, "15-mcp-and-error.chat")
	diags := toolDiagnostics(doc, newFakeRegistry())
	var mcp []chatdoc.Diagnostic
	for _, d := range diags {
		if strings.Contains(d.Message, "slack:channels_list") {
			mcp = append(mcp, d)
		}
	}
	if len(mcp) != 1 {
		t.Fatalf("want one diagnostic for the MCP tool, got %+v", diags)
	}
	d := mcp[0]
	if d.Code != CodeUnknownTool || d.Message != "Unknown tool `slack:channels_list`: no MCP server `slack` provides it" {
		t.Errorf("got %+v", d)
	}
	if spanText(doc, d.Span) != "slack:channels_list" {
		t.Errorf("span covers %q", spanText(doc, d.Span))
	}
}

func TestToolDiagnosticsNestedPath(t *testing.T) {
	text := lines(
		"@Assistant:",
		"**Tool Use:** `deep` (`t1`)",
		"",
		"```json",
		`{"opts": {"list": [1, {"bad": true}]}, "bad": 0}`,
		"```",
	)
	doc := chatdoc.Parse(text)
	reg := newFakeRegistry()
	reg.names = append(reg.names, "deep")
	reg.validate = func(string, map[string]any) []tools.ValidationError {
		return []tools.ValidationError{
			{Path: []string{"opts", "list", "1", "bad"}, Message: "opts.list.1.bad: unknown property"},
			{Path: []string{"opts", "list", "0"}, Message: "opts.list.0: expected string, got number"},
			{Path: []string{"nothere"}, Message: "nothere: missing required property"},
		}
	}
	var got []string
	for _, d := range toolDiagnostics(doc, reg) {
		got = append(got, spanText(doc, d.Span))
	}
	want := []string{`"bad"`, `1`, `{"opts": {"list": [1, {"bad": true}]}, "bad": 0}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

func TestToolDiagnosticsNilInputs(t *testing.T) {
	if got := toolDiagnostics(nil, newFakeRegistry()); got == nil || len(got) != 0 {
		t.Errorf("nil doc: %v", got)
	}
	if got := toolDiagnostics(chatdoc.Parse("@Assistant:\n"), nil); got == nil || len(got) != 0 {
		t.Errorf("nil registry: %v", got)
	}
}

// A Flemma 0.11 name (`server:tool`) of a tool chatls has is read as is,
// with a hint and one quick fix that writes every such name as 0.12 does.
func TestOldToolNamesOfferTheNewForm(t *testing.T) {
	reg := newFakeRegistry()
	reg.names = append(reg.names, "fs:read_file")
	text := lines(
		"@Assistant:",
		"**Tool Use:** `fs:read_file` (`t1`)",
		"",
		"```json",
		`{"path": "a"}`,
		"```",
		"",
		"**Tool Use:** `fs:read_file` (`t2`)",
		"",
		"```json",
		`{"path": "b"}`,
		"```",
	)
	doc := chatdoc.Parse(text)
	var hint *chatdoc.Diagnostic
	for _, d := range toolDiagnostics(doc, reg) {
		if d.Code == CodeOldToolName && hint == nil {
			hint = &d
		}
	}
	if hint == nil || hint.Message != "Flemma 0.12 writes this tool `fs.read_file`" || spanText(doc, hint.Span) != "fs:read_file" {
		t.Fatalf("hint %+v", hint)
	}
	fixes := QuickFixes(doc, *hint, reg)
	if len(fixes) != 1 || fixes[0].Title != "Use Flemma 0.12 tool names" {
		t.Fatalf("fixes %+v", fixes)
	}
	got := chatdoc.ApplyEdits(text, fixes[0].Edits)
	if strings.Contains(got, "fs:read_file") || strings.Count(got, "`fs.read_file`") != 2 {
		t.Fatalf("after the fix:\n%s", got)
	}
}
