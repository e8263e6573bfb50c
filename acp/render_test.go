package acp

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

var update = flag.Bool("update", false, "rewrite the rendering goldens in testdata/render")

// checkGolden compares text with testdata/render/NAME.chat and checks that
// the answer, after a @You: message, parses with no error.
func checkGolden(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join("testdata/render", name+".chat")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if text != string(want) {
		t.Errorf("%s:\n--- got\n%s\n--- want\n%s", name, text, want)
	}
	doc := chatdoc.Parse("@You:\n\nGo.\n\n" + text)
	for _, d := range doc.Diagnostics() {
		if d.Severity == chatdoc.SeverityError || d.Severity == chatdoc.SeverityWarning {
			t.Errorf("%s: %s (%s)", name, d.Message, d.Code)
		}
	}
}

func msg(s string) Update     { return Update{Kind: UpdateMessage, Text: s} }
func thought(s string) Update { return Update{Kind: UpdateThought, Text: s} }
func toolUpdate(kind UpdateKind, c ToolCall) Update {
	return Update{Kind: kind, Tool: &c}
}

// The transcript writes its tool headers as the document does (SPEC §1
// "Compact headers"): compact by default, as in a fresh document, and with
// a blank line after each header when the document is written spaced.
func TestRenderClaudeCodeShape(t *testing.T) {
	for _, spaced := range []bool{false, true} {
		suffix := ""
		if spaced {
			suffix = "_spaced"
		}
		tr := Transcript{SpacedHeaders: spaced}
		tr.Add(thought("I should look at the file."))
		tr.Add(msg("Let me read it.\n"))
		tr.Add(toolUpdate(UpdateToolCall, ToolCall{ID: "toolu_01", Title: "Read", Kind: "read", Status: "pending", RawInput: json.RawMessage(`{}`)}))
		tr.Add(toolUpdate(UpdateToolCall, ToolCall{ID: "toolu_01", Title: "Read /src/main.go", Kind: "read", Status: "pending",
			RawInput: json.RawMessage(`{"file_path": "/src/main.go", "limit": 20}`)}))
		tr.Pending("toolu_01", true)
		checkGolden(t, "claude_pending"+suffix, tr.Text())

		tr.Pending("toolu_01", false)
		tr.Add(toolUpdate(UpdateToolCallUpdate, ToolCall{ID: "toolu_01", Status: "completed",
			Content: []ToolContent{{Text: "package main\n\nfunc main() {}\n"}}}))
		tr.Add(msg("It is an empty ```main```."))
		final := tr.Final("")
		checkGolden(t, "claude_done"+suffix, final)
		if gap := chatdoc.Parse("@You:\n\nGo.\n\n" + final).HeaderGap(); (gap != "") != spaced {
			t.Errorf("spaced %v: the answer reads back with header gap %q", spaced, gap)
		}
	}
}

func TestRenderDiffTerminalAndFailure(t *testing.T) {
	var tr Transcript
	old := "hello world\n"
	tr.Add(toolUpdate(UpdateToolCall, ToolCall{ID: "e1", Title: "Edit hello.txt", Kind: "edit", Status: "in_progress",
		RawInput: json.RawMessage(`{"file_path":"/w/hello.txt","old_string":"world","new_string":"ACP"}`)}))
	tr.Add(toolUpdate(UpdateToolCallUpdate, ToolCall{ID: "e1", Status: "completed",
		Content: []ToolContent{{Diff: &Diff{Path: "/w/hello.txt", OldText: &old, NewText: "hello ACP\n"}}}}))
	tr.Add(toolUpdate(UpdateToolCall, ToolCall{ID: "n1", Title: "Write new.txt", Kind: "edit", Status: "in_progress", RawInput: json.RawMessage(`{"file_path":"/w/new.txt"}`)}))
	tr.Add(toolUpdate(UpdateToolCallUpdate, ToolCall{ID: "n1", Status: "completed",
		Content: []ToolContent{{Diff: &Diff{Path: "/w/new.txt", NewText: "fresh\n"}}}}))
	tr.Add(msg("Now the tests."))
	tr.Add(toolUpdate(UpdateToolCall, ToolCall{ID: "b1", Title: "`go test ./...`", Kind: "execute", Status: "in_progress", RawInput: json.RawMessage(`{"command":"go test ./..."}`)}))
	tr.Add(toolUpdate(UpdateToolCallUpdate, ToolCall{ID: "b1", Content: []ToolContent{{TerminalID: "term-1"}}}))
	tr.TerminalOutput("term-1", "--- FAIL: TestX\nFAIL\n")
	tr.Add(toolUpdate(UpdateToolCallUpdate, ToolCall{ID: "b1", Status: "failed"}))
	tr.Add(toolUpdate(UpdateToolCall, ToolCall{ID: "x1", Title: "mcp: `fetch` page", Kind: "other", Status: "completed",
		RawInput: json.RawMessage(`"https://example.com"`), RawOutput: json.RawMessage(`{"status": 200}`)}))
	tr.Add(msg("The test fails."))
	checkGolden(t, "diff_terminal", tr.Final(""))
}

func TestRenderPlanInPlace(t *testing.T) {
	var tr Transcript
	entries := func(a, b string) []PlanEntry {
		return []PlanEntry{{Content: "Read the code", Status: a}, {Content: "Fix the bug", Status: b}}
	}
	tr.Add(msg("Here is my plan:"))
	tr.Add(Update{Kind: UpdatePlan, Plan: entries("in_progress", "pending")})
	tr.Add(msg("Reading."))
	tr.Add(Update{Kind: UpdatePlan, Plan: entries("completed", "pending")})
	tr.Add(Update{Kind: UpdateUsage, Usage: &Usage{ContextUsed: 10}})
	tr.Add(Update{Kind: UpdateOther, Name: "available_commands_update"})
	checkGolden(t, "plan", tr.Final(""))
}

func TestRenderAbortedAndEscaped(t *testing.T) {
	var tr Transcript
	tr.Add(msg("A line that reads as structure:\n@You:\n**Tool Use:** `x` (`y`)\n```\n"))
	tr.Add(toolUpdate(UpdateToolCall, ToolCall{ID: "b2", Kind: "execute", Status: "in_progress", RawInput: json.RawMessage(`{"command":"sleep 100"}`)}))
	checkGolden(t, "live_unfinished", tr.Text())
	checkGolden(t, "aborted", tr.Final(chatdoc.AbortedByUser))
	checkGolden(t, "unreported", tr.Final(""))
}

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ kind, title, want string }{
		{"read", "Read /a/b.go", "read"},
		{"other", "Read /a/b.go", "Read_a_b.go"},
		{"", "`ls -la`", "ls_-la"},
		{"", "mcp__github__list", "mcp__github__list"},
		{"", "¿?", "tool"},
	} {
		if got := ToolName(&ToolCall{Kind: tc.kind, Title: tc.title}); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.kind, tc.title, got, tc.want)
		}
	}
}

func TestShellLine(t *testing.T) {
	if got := ShellLine("ls -la | head", nil); got != "ls -la | head" {
		t.Errorf("no args: %q", got)
	}
	if got := ShellLine("grep", []string{"-r", "it's here", "src dir"}); got != `grep -r "it's here" 'src dir'` {
		t.Errorf("args: %q", got)
	}
}

// TestRenderRealAgentTurn renders what the scripted agent sends.
func TestRenderRealAgentTurn(t *testing.T) {
	c := newTestClient(allowKind(AllowOnce))
	a := startAgent(t, c, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("hello world\nline two\n"), 0o644)
	session := newSession(t, a)
	var tr Transcript
	for _, p := range []string{"read " + file, "write " + file, "plan"} {
		got, _, err := prompt(t, a, session, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range got {
			tr.Add(u)
		}
	}
	checkGolden(t, "real_agent", strings.ReplaceAll(tr.Final(""), dir, "/DIR"))
}
