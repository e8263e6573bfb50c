package chatdoc

import (
	"strings"
	"testing"
)

// Flemma's own 0.12–0.14 parser assertions, restated: each case names the
// spec file and its test. The buffers are the specs' lines joined with
// "\n" (Flemma's specs build buffers from line lists, so they end without
// a final newline).

func lines(ls ...string) string { return strings.Join(ls, "\n") }

// tests/flemma/ast_background_spec.lua, describe("job result parsing").
func TestFlemmaSpecJobResultParsing(t *testing.T) {
	for _, c := range []struct {
		spec, text, job, contains string
		isError                   bool
	}{
		{"parses a successful job result block",
			lines("@You:", "**Job Result:** `job_k7x2m`", "", "```", "tests/flemma/core_spec.lua: 47 passed, 0 failed", "```"),
			"job_k7x2m", "47 passed", false},
		{"parses an error job result block",
			lines("@You:", "**Job Result:** `job_9pfa3` (error)", "", "```", "Exit code 1: FAILED tests/flemma/agent_spec.lua", "```"),
			"job_9pfa3", "Exit code 1", true},
		{"parses an orphan recovery block",
			lines("@You:", "**Job Result:** `job_lost1` (error)", "", "```", "Job lost: session ended before completion.", "```"),
			"job_lost1", JobLost, true},
	} {
		d := assertPrintsBack(t, c.text)
		if d.MessageCount() != 1 || d.Message(0).Role != "You" {
			t.Errorf("%s: %d messages", c.spec, d.MessageCount())
			continue
		}
		jobs := d.JobResultsIn(d.Message(0))
		if len(jobs) != 1 || jobs[0].Job != c.job || jobs[0].IsError != c.isError || !strings.Contains(jobs[0].Content, c.contains) {
			t.Errorf("%s: %+v", c.spec, jobs)
		}
		if len(d.Diagnostics()) != 0 {
			t.Errorf("%s: diagnostics %v", c.spec, d.Diagnostics())
		}
	}
}

// tests/flemma/ast_parser_spec.lua, describe("ast.query"): the pairing of
// tool uses and results (find_tool_sibling, build_tool_sibling_table), in
// Flemma 0.13's compact form (a fence right under its header, a role
// marker right after a closing fence), and the job lookups
// (find_tool_segment_at_line, find_job_result, find_tool_result_for_job).
func TestFlemmaSpecToolSiblings(t *testing.T) {
	t.Run("find_tool_sibling: returns tool_result for a tool_use segment", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `bash` (`call_001`)", "```json", `{"command": "ls"}`, "```",
			"@You:", "**Tool Result:** `call_001`", "", "```", "file1.txt", "```"))
		r := d.ToolResult("call_001")
		if r == nil || r.Content != "file1.txt" || d.MessageAt(r.Span.Start).Role != "You" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("find_tool_sibling: returns tool_use for a tool_result segment", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `read` (`call_002`)", "```json", `{"path": "/tmp/a.txt"}`, "```",
			"@You:", "**Tool Result:** `call_002`", "", "```", "contents", "```"))
		u := d.ToolUse(d.ToolResults()[0].ID)
		if u == nil || u.ID != "call_002" || u.Name != "read" || d.MessageAt(u.Span.Start).Role != "Assistant" {
			t.Fatalf("%+v", u)
		}
	})
	t.Run("find_tool_sibling: returns nil for tool_use without result", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `bash` (`call_003`)", "```json", `{"command": "pwd"}`, "```"))
		if d.ToolUse("call_003") == nil || d.ToolResult("call_003") != nil {
			t.Fatal("pairing")
		}
	})
	t.Run("find_tool_sibling: returns nil for orphan tool_result", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@You:", "**Tool Result:** `call_orphan`", "", "```", "data", "```"))
		if d.ToolResult("call_orphan") == nil || d.ToolUse("call_orphan") != nil {
			t.Fatal("pairing")
		}
	})
	t.Run("find_tool_sibling: handles multiple tool pairs", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `bash` (`call_a`)", "```json", `{"command": "ls"}`, "```",
			"**Tool Use:** `read` (`call_b`)", "```json", `{"path": "/tmp"}`, "```",
			"@You:", "**Tool Result:** `call_a`", "", "```", "result_a", "```", "**Tool Result:** `call_b`", "", "```", "result_b", "```"))
		if r := d.ToolResult("call_b"); r == nil || r.Content != "result_b" || d.ToolUse("call_b").Name != "read" {
			t.Fatalf("%+v", r)
		}
		if r := d.ToolResult("call_a"); r == nil || r.Content != "result_a" {
			t.Fatalf("%+v", r)
		}
	})
	// Flemma's find_tool_sibling takes the first duplicate and its
	// build_tool_sibling_table the last ("last tool_result wins for
	// duplicate tool_use_id"); chatls pairs the first, as
	// find_tool_sibling, and flags the second.
	t.Run("find_tool_sibling: returns first match for duplicate tool_result", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `bash` (`call_dup`)", "```json", `{"command": "echo hi"}`, "```",
			"@You:", "**Tool Result:** `call_dup`", "", "```", "first_result", "```", "**Tool Result:** `call_dup`", "", "```", "second_result", "```"))
		if r := d.ToolResult("call_dup"); r == nil || r.Content != "first_result" {
			t.Fatalf("%+v", r)
		}
		if c := codes(d)[CodeDuplicateToolResult]; len(c) != 1 || c[0] != "call_dup" {
			t.Fatalf("diagnostics %v", codes(d))
		}
	})
	for _, spec := range []string{"find_tool_sibling: works with intermediate status tool_result", "build_tool_sibling_table: preserves status on tool_result entries"} {
		t.Run(spec, func(t *testing.T) {
			d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `bash` (`call_pending`)", "```json", `{"command": "rm -rf /"}`, "```",
				"@You:", "**Tool Result:** `call_pending` (pending)", "", "```", "```"))
			if r := d.ToolResult("call_pending"); r == nil || r.Status != StatusPending || r.Dialect != DialectSuffix {
				t.Fatalf("%+v", r)
			}
		})
	}
	t.Run("build_tool_sibling_table: indexes multiple pairs correctly", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `bash` (`id_1`)", "```json", `{"command": "a"}`, "```",
			"**Tool Use:** `read` (`id_2`)", "```json", `{"path": "b"}`, "```",
			"@You:", "**Tool Result:** `id_1`", "", "```", "res_a", "```", "**Tool Result:** `id_2`", "", "```", "res_b", "```"))
		for id, want := range map[string][2]string{"id_1": {"bash", "res_a"}, "id_2": {"read", "res_b"}} {
			if d.ToolUse(id).Name != want[0] || d.ToolResult(id).Content != want[1] {
				t.Errorf("%s: %q %q", id, d.ToolUse(id).Name, d.ToolResult(id).Content)
			}
		}
	})
	t.Run("find_tool_segment_at_line: returns job_result segment", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@You:", "**Job Result:** `job_abc12345`", "", "```", "test output", "```"))
		at := d.Lines.LineStart(1) // the spec's line 2
		var found *JobResult
		for _, j := range d.JobResults() {
			if j.Span.Start <= at && at < j.Span.End {
				found = &j
			}
		}
		if found == nil || found.Job != "job_abc12345" {
			t.Fatalf("%+v", d.JobResults())
		}
	})
	t.Run("find_job_result: finds a job_result by job_id, nil for a non-existent one", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@You:", "**Job Result:** `job_find1`", "", "```", "result data", "```"))
		if j := d.JobResult("job_find1"); j == nil || j.Content != "result data" || d.MessageAt(j.Span.Start).Role != "You" {
			t.Fatalf("%+v", j)
		}
		if d.JobResult("job_nope") != nil {
			t.Fatal("job_nope found")
		}
	})
	t.Run("find_tool_result_for_job: finds a tool_result with matching job= meta", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `bash` (`call_bg1`)", "```json", `{"command": "ls"}`, "```",
			"@You:", "**Tool Result:** `call_bg1` (job=job_match1)", "", "```", "Running as a background job.", "```"))
		if r := d.ToolResult("call_bg1"); r == nil || r.Job() != "job_match1" || r.Status != StatusDone {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("find_tool_result_for_job: returns nil when no tool_result references the job", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@You:", "**Tool Result:** `call_plain`", "", "```", "output", "```"))
		if r := d.ToolResult("call_plain"); r == nil || r.Job() != "" {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("effective_tool_result_status: (error job=JOB) is an error, whatever its Job Result", func(t *testing.T) {
		d := assertPrintsBack(t, lines("@Assistant:", "**Tool Use:** `bash` (`call_es6`)", "```json", `{"command": "ls"}`, "```",
			"@You:", "**Tool Result:** `call_es6` (error job=job_override1)", "", "```", "Running as a background job.", "```", "",
			"@You:", "**Job Result:** `job_override1`", "", "```", "success", "```"))
		if r := d.ToolResult("call_es6"); r.Status != StatusError || r.Job() != "job_override1" {
			t.Fatalf("%+v", r)
		}
		if j := d.JobResult("job_override1"); j == nil || j.IsError || d.MessageAt(j.Span.Start) != d.Message(2) {
			t.Fatalf("%+v", j)
		}
	})
}

// tests/flemma/injector_background_spec.lua: how a background call's
// header and its Job Result are written (set_header_modeline,
// append_job_result). chatls writes the running text with the header
// (BackgroundResult) and delivers with AddJobResult.
func TestFlemmaSpecInjectorBackground(t *testing.T) {
	t.Run("set_header_modeline: writes KV modeline to tool_result header", func(t *testing.T) {
		text := lines("@Assistant:", "**Tool Use:** `bash` (`tool_01`)", "", "```json", `{"command": "ls"}`, "```", "",
			"@You:", "**Tool Result:** `tool_01`", "", "```", "```")
		edits, err := BackgroundResult(Parse(text), "tool_01", "bg_k7x2m")
		if err != nil {
			t.Fatal(err)
		}
		got := ApplyEdits(text, edits)
		if header := strings.Split(got, "\n")[8]; header != "**Tool Result:** `tool_01` (job=bg_k7x2m)" {
			t.Fatalf("line 9 %q:\n%s", header, got)
		}
		if r := Parse(got).ToolResult("tool_01"); r == nil || r.Status != StatusDone || r.Job() != "bg_k7x2m" {
			t.Fatalf("%+v", r)
		}
	})
	deliver := func(t *testing.T, text, job, output string, isError bool) *Document {
		t.Helper()
		got := ApplyEdits(text, AddJobResult(Parse(text), job, output, isError))
		d := assertPrintsBack(t, got)
		j := d.JobResult(job)
		if j == nil || j.Content != output || j.IsError != isError {
			t.Fatalf("job result %+v in:\n%s", j, got)
		}
		if m := d.MessageAt(j.Span.Start); m != d.Message(d.MessageCount()-1) || m.Role != "You" {
			t.Fatalf("job result not in the last @You:\n%s", got)
		}
		return d
	}
	t.Run("append_job_result: Case 1: appends into empty trailing @You block", func(t *testing.T) {
		d := deliver(t, lines("@Assistant:", "Done.", "", "@You:", ""), "bg_k7x2m", "47 passed, 0 failed", false)
		if d.MessageCount() != 2 {
			t.Fatalf("%d messages:\n%s", d.MessageCount(), d.Text())
		}
	})
	t.Run("append_job_result: Case 2: creates @You block when buffer ends with @Assistant", func(t *testing.T) {
		d := deliver(t, lines("@Assistant:", "Done."), "bg_abc99", "result here", false)
		if d.MessageCount() != 2 || !strings.HasPrefix(d.Text(), "@Assistant:\nDone.\n\n@You:\n") {
			t.Fatalf("%q", d.Text())
		}
	})
	t.Run("append_job_result: Case 3: inserts before user's in-progress @You block", func(t *testing.T) {
		d := deliver(t, lines("@Assistant:", "Done.", "", "@You:", "I'm typing something here"), "bg_xyz42", "bg result", false)
		if bg, user := strings.Index(d.Text(), "Job Result"), strings.Index(d.Text(), "I'm typing something here"); bg < 0 || user < 0 || bg > user {
			t.Fatalf("%q", d.Text())
		}
	})
	t.Run("append_job_result: writes (error) suffix for failed results", func(t *testing.T) {
		d := deliver(t, lines("@Assistant:", "Done.", "", "@You:", ""), "bg_err01", "Exit code 1", true)
		if !strings.Contains(d.Text(), "`bg_err01` (error)") {
			t.Fatalf("%q", d.Text())
		}
	})
}
