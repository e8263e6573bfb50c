package surface

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chatls/chatls/chatdoc"
)

// fixFor runs QuickFixes for the first diagnostic with code (from the parser
// or ToolDiagnostics) and returns the titles and the text after the first fix.
func fixFor(t *testing.T, doc *chatdoc.Document, code string) (titles []string, fixed string) {
	t.Helper()
	reg := newFakeRegistry()
	diags := append(append([]chatdoc.Diagnostic{}, doc.Diagnostics()...), toolDiagnostics(doc, reg)...)
	for _, d := range diags {
		if d.Code != code {
			continue
		}
		fixes := QuickFixes(doc, d, reg)
		for _, f := range fixes {
			titles = append(titles, f.Title)
		}
		if len(fixes) > 0 {
			fixed = applyEdits(t, doc.Text(), fixes[0].Edits)
		}
		return titles, fixed
	}
	t.Fatalf("no diagnostic %s in %v", code, diags)
	return nil, ""
}

func TestQuickFixSplitInlineRoleMarker(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n"} {
		doc := chatdoc.Parse(strings.ReplaceAll("@You:   hello there\n\n@Assistant:\nhi\n", "\n", nl))
		titles, fixed := fixFor(t, doc, chatdoc.CodeInlineRoleMarker)
		if diff := cmp.Diff([]string{"Put `@You:` on its own line"}, titles); diff != "" {
			t.Error(diff)
		}
		if want := strings.ReplaceAll("@You:\nhello there\n\n@Assistant:\nhi\n", "\n", nl); fixed != want {
			t.Errorf("got %q want %q", fixed, want)
		}
		if again := chatdoc.Parse(fixed); len(again.Diagnostics()) != 0 {
			t.Errorf("fixed document still has %v", again.Diagnostics())
		}
	}
}

func TestQuickFixRenameUnknownTool(t *testing.T) {
	doc := corpus(t, "08-malformed.chat")
	titles, fixed := fixFor(t, doc, CodeUnknownTool)
	if diff := cmp.Diff([]string{"Change tool to `read`"}, titles); diff != "" {
		t.Error(diff)
	}
	if !strings.Contains(fixed, "**Tool Use:** `read` (`toolu_unknown`)") || strings.Contains(fixed, "reed") {
		t.Errorf("rename not applied:\n%s", fixed)
	}
	// No suggestion, no fix.
	mcp := corpus(t, "15-mcp-and-error.chat")
	if titles, _ := fixFor(t, mcp, CodeUnknownTool); len(titles) != 0 {
		t.Errorf("MCP tool without suggestion got fixes %v", titles)
	}
}

func TestQuickFixCloseFence(t *testing.T) {
	tests := []struct {
		name, code, text, want string
	}{
		{
			name: "last result",
			code: chatdoc.CodeResultUnclosedFence,
			text: "@You:\n\n**Tool Result:** `a`\n\n````\nnever closed\n\n",
			want: "@You:\n\n**Tool Result:** `a`\n\n````\nnever closed\n````\n\n",
		},
		{
			name: "no final newline",
			code: chatdoc.CodeResultUnclosedFence,
			text: "@You:\n\n**Tool Result:** `a`\n\n```\nx",
			want: "@You:\n\n**Tool Result:** `a`\n\n```\nx\n```",
		},
		{
			name: "tool use before a later marker",
			code: chatdoc.CodeToolUseUnclosedFence,
			text: "@Assistant:\n**Tool Use:** `read` (`r`)\n\n```json\n{\"path\":\"a\"}\n\n@You:\nthanks\n",
			want: "@Assistant:\n**Tool Use:** `read` (`r`)\n\n```json\n{\"path\":\"a\"}\n```\n\n@You:\nthanks\n",
		},
		{
			name: "empty fence crlf",
			code: chatdoc.CodeResultUnclosedFence,
			text: "@You:\r\n\r\n**Tool Result:** `a`\r\n\r\n```\r\n",
			want: "@You:\r\n\r\n**Tool Result:** `a`\r\n\r\n```\r\n```\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			titles, fixed := fixFor(t, chatdoc.Parse(tt.text), tt.code)
			if diff := cmp.Diff([]string{"Close the code fence"}, titles); diff != "" {
				t.Error(diff)
			}
			if fixed != tt.want {
				t.Errorf("got\n%q\nwant\n%q", fixed, tt.want)
			}
		})
	}
}

func TestQuickFixInsertPlaceholders(t *testing.T) {
	doc := corpus(t, "02-parallel-unanswered.chat")
	use := doc.ToolUse("call_b2")
	d := chatdoc.Diagnostic{Span: use.HeaderSpan, Code: CodeUnansweredToolUse, ToolID: use.ID, Severity: chatdoc.SeverityHint}
	fixes := QuickFixes(doc, d, newFakeRegistry())
	if len(fixes) != 1 || fixes[0].Title != "Insert 3 approval placeholders" || !fixes[0].Preferred {
		t.Fatalf("fixes: %+v", fixes)
	}
	after := chatdoc.Parse(applyEdits(t, doc.Text(), fixes[0].Edits))
	var got []string
	for _, r := range after.ToolResults() {
		got = append(got, r.ID+" "+string(r.Status)+" "+r.Dialect.String())
	}
	want := []string{"call_r1 pending fence", "call_b2 pending fence", "call_w3 pending fence"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placeholders (-want +got):\n%s", diff)
	}
	// Once answered, nothing is left to insert.
	if fixes := QuickFixes(after, chatdoc.Diagnostic{Span: after.ToolUse("call_b2").HeaderSpan, Code: CodeUnansweredToolUse, ToolID: "call_b2"}, nil); len(fixes) != 0 {
		t.Errorf("answered: %+v", fixes)
	}
}

func TestQuickFixInsertPlaceholdersFollowsSuffixDialect(t *testing.T) {
	doc := chatdoc.Parse("@Assistant:\n**Tool Use:** `ls` (`a`)\n\n```json\n{}\n```\n\n**Tool Use:** `ls` (`b`)\n\n```json\n{}\n```\n\n@You:\n\n**Tool Result:** `a` (pending)\n\n```\n```\n")
	fixes := QuickFixes(doc, chatdoc.Diagnostic{Code: CodeUnansweredToolUse, ToolID: "b", Span: doc.ToolUse("b").HeaderSpan}, nil)
	if len(fixes) != 1 {
		t.Fatalf("fixes: %+v", fixes)
	}
	after := chatdoc.Parse(applyEdits(t, doc.Text(), fixes[0].Edits))
	if r := after.ToolResult("b"); r == nil || r.Dialect != chatdoc.DialectSuffix || r.Status != chatdoc.StatusPending {
		t.Errorf("got %+v in\n%s", r, after.Text())
	}
}

func TestQuickFixesUnrelatedOrStale(t *testing.T) {
	doc := corpus(t, "01-pending-bash.chat")
	for _, d := range []chatdoc.Diagnostic{
		{Code: "orphan-result", Span: chatdoc.Span{Start: 0, End: 5}},
		{Code: chatdoc.CodeInlineRoleMarker, Span: chatdoc.Span{Start: 0, End: 8}},           // line has no inline text
		{Code: chatdoc.CodeResultUnclosedFence, Span: chatdoc.Span{Start: -5, End: 1 << 30}}, // no unclosed fence
		{Code: CodeUnknownTool, ToolID: "nope", Span: chatdoc.Span{Start: 1 << 30, End: 1 << 31}},
		{Code: CodeUnansweredToolUse, ToolID: "toolu_01A"}, // already answered
	} {
		if fixes := QuickFixes(doc, d, newFakeRegistry()); fixes == nil || len(fixes) != 0 {
			t.Errorf("%+v: got %+v", d, fixes)
		}
	}
	if fixes := QuickFixes(nil, chatdoc.Diagnostic{}, nil); fixes == nil || len(fixes) != 0 {
		t.Errorf("nil doc: %+v", fixes)
	}
}

// A plain fence that runs to the end of the document (chatdoc's
// unclosed-fence warning) is closed before the next role marker; the
// fixed document parses without warnings and has its messages back.
func TestQuickFixCloseUnclosedPlainFence(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n"} {
		src := strings.ReplaceAll("@You:\nlook:\n\n```python\nprint(1)\n\n@Assistant:\nok\n", "\n", nl)
		titles, fixed := fixFor(t, chatdoc.Parse(src), chatdoc.CodeUnclosedFence)
		if diff := cmp.Diff([]string{"Close the code fence"}, titles); diff != "" {
			t.Error(diff)
		}
		want := strings.ReplaceAll("@You:\nlook:\n\n```python\nprint(1)\n```\n\n@Assistant:\nok\n", "\n", nl)
		if fixed != want {
			t.Errorf("got %q want %q", fixed, want)
		}
		if again := chatdoc.Parse(fixed); len(again.Diagnostics()) != 0 || len(again.Messages()) != 2 {
			t.Errorf("fixed document: %d messages, diagnostics %v", len(again.Messages()), again.Diagnostics())
		}
	}
}

// An unclosed frontmatter opener makes the whole document one fence; the
// fix closes it before the first role marker, which makes it frontmatter.
func TestQuickFixCloseUnclosedFrontmatter(t *testing.T) {
	doc := chatdoc.Parse("```lua\nflemma.opt.tools.auto_approve = { \"$readonly\" }\n@You:\nhi\n")
	_, fixed := fixFor(t, doc, chatdoc.CodeUnclosedFence)
	again := chatdoc.Parse(fixed)
	if again.Frontmatter == nil || len(again.Messages()) != 1 || len(again.Diagnostics()) != 0 {
		t.Errorf("fixed %q: frontmatter %v, %d messages, diagnostics %v", fixed, again.Frontmatter, len(again.Messages()), again.Diagnostics())
	}
}

// A role marker inside a fence that a later fence's closer ends (the usual
// result of a forgotten closer): the fix ends the fence above the marker,
// not preferred, since the marker may be meant as content.
func TestQuickFixEndFenceBeforeRoleMarker(t *testing.T) {
	src := "@Assistant:\nHere:\n\n```python\nprint(1)\n\n@You:\nthanks, and this:\n\n```json\n{}\n```\n"
	doc := chatdoc.Parse(src)
	reg := newFakeRegistry()
	var fixes []Fix
	for _, d := range doc.Diagnostics() {
		if d.Code == chatdoc.CodeRoleMarkerInFence {
			fixes = QuickFixes(doc, d, reg)
		}
	}
	if len(fixes) != 1 || fixes[0].Preferred || fixes[0].Title != "End the code fence before this role marker" {
		t.Fatalf("fixes: %+v", fixes)
	}
	fixed := applyEdits(t, src, fixes[0].Edits)
	if want := "@Assistant:\nHere:\n\n```python\nprint(1)\n```\n\n@You:\nthanks, and this:\n\n```json\n{}\n```\n"; fixed != want {
		t.Errorf("got %q want %q", fixed, want)
	}
	if again := chatdoc.Parse(fixed); len(again.Messages()) != 2 || len(again.Diagnostics()) != 0 {
		t.Errorf("fixed document: %d messages, diagnostics %v", len(again.Messages()), again.Diagnostics())
	}
}
