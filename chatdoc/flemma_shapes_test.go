package chatdoc

import (
	"fmt"
	"strings"
	"testing"
)

// Flemma 0.12–0.14 shapes (SPEC §1 "Flemma 0.12–0.14"): each document
// parses to the expected nodes and prints back byte-identical.

// flemmaShapes are documents in the 0.12–0.14 forms, also fuzz seeds.
var flemmaShapes = []string{
	dottedNames, compactUse, spacedUse, jobMeta,
	"@Assistant:\n**Tool Use:** `bash` (`u1`)\n```json\n{\"command\":\n**Tool Use:** `read` (`u2`)\n```json\n{}\n```\n",
	"@You:\n@./a.png;title=\"x; y z\";type=image/png! @./b;k=v;type=text/plain.\n",
	"@Assistant:\n<thinking>\nplan\n**Tool Use:** `bash` (`t_in`)\n```json\n{}\n```\n\n@You:\nnext\n",
}

const dottedNames = "@Assistant:\n" +
	"**Tool Use:** `slack.channels_list` (`toolu.mcp.1`)\n\n```json\n{\"limit\":5}\n```\n\n" +
	"**Tool Use:** `flemma.jobs.status` (`urn:flemma:tool:flemma.jobs.status:ab12`)\n```json\n{}\n```\n\n" +
	"**Tool Use:** `slack:channels_list` (`toolu_old`)\n\n```json\n{}\n```\n\n" +
	"@You:\n**Tool Result:** `toolu.mcp.1`\n\n```\n#general\n```\n"

// assertPrintsBack checks Parse→print identity.
func assertPrintsBack(t *testing.T, text string) *Document {
	t.Helper()
	d := Parse(text)
	if d.Text() != text || ApplyEdits(d.Text(), nil) != text {
		t.Fatal("parse then print is not byte-identical")
	}
	return d
}

func TestFlemmaDottedToolNames(t *testing.T) {
	d := assertPrintsBack(t, dottedNames)
	if diags := d.Diagnostics(); len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := []struct{ name, id string }{
		{"slack.channels_list", "toolu.mcp.1"},
		{"flemma.jobs.status", "urn:flemma:tool:flemma.jobs.status:ab12"},
		{"slack:channels_list", "toolu_old"},
	}
	uses := d.ToolUses()
	if len(uses) != len(want) {
		t.Fatalf("%d tool uses, want %d", len(uses), len(want))
	}
	for i, w := range want {
		u := uses[i]
		if u.Name != w.name || u.ID != w.id || !u.Valid() {
			t.Errorf("use %d = %q (%q) valid=%v, want %q (%q)", i, u.Name, u.ID, u.Valid(), w.name, w.id)
		}
		if got := d.Slice(u.NameSpan().Start, u.NameSpan().End); got != w.name {
			t.Errorf("use %d NameSpan reads %q", i, got)
		}
		if got := d.Slice(u.IDSpan().Start, u.IDSpan().End); got != w.id {
			t.Errorf("use %d IDSpan reads %q", i, got)
		}
	}
	if r := d.ToolResult("toolu.mcp.1"); r == nil || r.Status != StatusDone || r.Content != "#general" {
		t.Fatalf("result for a dotted ID: %+v", r)
	}
}

const compactUse = "@Assistant:\n**Tool Use:** `bash` (`t1`)\n```json\n{\"command\":\"ls\"}\n```\n\n" +
	"**Tool Use:** `read` (`t2`)\n```json\n{\"path\":\"a\"}\n```\n"

const spacedUse = "@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\n" +
	"**Tool Use:** `read` (`t2`)\n\n```json\n{\"path\":\"a\"}\n```\n"

// TestFlemmaCompactHeadersRead: a header directly followed by its fence is
// the same call or result as a spaced one.
func TestFlemmaCompactHeadersRead(t *testing.T) {
	text := compactUse + "\n@You:\n**Tool Result:** `t1`\n```\nout\n```\n\n**Tool Result:** `t2` (pending)\n```\n```\n"
	d := assertPrintsBack(t, text)
	if diags := d.Diagnostics(); len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if u := d.ToolUse("t1"); u == nil || !u.Valid() || u.RawInput != `{"command":"ls"}` {
		t.Fatalf("compact tool use: %+v", u)
	}
	if r := d.ToolResult("t1"); r == nil || r.Status != StatusDone || r.Content != "out" {
		t.Fatalf("compact result: %+v", r)
	}
	if r := d.ToolResult("t2"); r == nil || r.Status != StatusPending || r.Dialect != DialectSuffix {
		t.Fatalf("compact placeholder: %+v", r)
	}
}

func TestFlemmaHeaderGap(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"no tool header", "@You:\nhi\n", ""},
		{"compact uses", compactUse, ""},
		{"spaced uses", spacedUse, "\n"},
		{"last header decides: compact result after spaced uses", spacedUse + "\n@You:\n**Tool Result:** `t1`\n```\nx\n```\n", ""},
		{"last header decides: spaced result after compact uses", compactUse + "\n@You:\n**Tool Result:** `t1`\n\n```\nx\n```\n", "\n"},
		{"a header without fence is skipped", compactUse + "\n@You:\n**Tool Result:** `t1`\n", ""},
		{"CRLF spaced", "@Assistant:\r\n**Tool Use:** `bash` (`t1`)\r\n\r\n```json\r\n{}\r\n```\r\n", "\r\n"},
	} {
		if got := Parse(c.text).HeaderGap(); got != c.want {
			t.Errorf("%s: HeaderGap = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFlemmaWritersFollowHeaderStyle: placeholders and results are written
// compact in a compact document and spaced in a spaced one, in every
// dialect.
func TestFlemmaWritersFollowHeaderStyle(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		dialect   Dialect
		want      string
	}{
		{"compact fence", compactUse, DialectFence,
			"@You:\n\n**Tool Result:** `t1`\n```flemma:tool status=pending\n```\n\n**Tool Result:** `t2`\n```flemma:tool status=pending\n```\n"},
		{"spaced fence", spacedUse, DialectFence,
			"@You:\n\n**Tool Result:** `t1`\n\n```flemma:tool status=pending\n```\n\n**Tool Result:** `t2`\n\n```flemma:tool status=pending\n```\n"},
		{"compact suffix", compactUse, DialectSuffix,
			"@You:\n\n**Tool Result:** `t1` (pending)\n```\n```\n\n**Tool Result:** `t2` (pending)\n```\n```\n"},
		{"spaced suffix", spacedUse, DialectSuffix,
			"@You:\n\n**Tool Result:** `t1` (pending)\n\n```\n```\n\n**Tool Result:** `t2` (pending)\n\n```\n```\n"},
		{"compact legacy", compactUse, DialectLegacy,
			"@You:\n\n**Tool Result:** `t1`\n```flemma:pending\n```\n\n**Tool Result:** `t2`\n```flemma:pending\n```\n"},
	} {
		d := assertPrintsBack(t, c.doc)
		edits, err := InsertPlaceholders(d, []PlaceholderRequest{{ID: "t1"}, {ID: "t2"}}, c.dialect)
		if err != nil {
			t.Fatal(err)
		}
		got := ApplyEdits(c.doc, edits)
		if got != c.doc+c.want {
			t.Errorf("%s: wrote\n%q\nwant\n%q", c.name, got[len(c.doc):], c.want)
			continue
		}
		// The written placeholders are read back as placeholders.
		d2 := assertPrintsBack(t, got)
		for _, id := range []string{"t1", "t2"} {
			if r := d2.ToolResult(id); r == nil || r.Status != StatusPending || r.Dialect != c.dialect {
				t.Errorf("%s: %s read back as %+v", c.name, id, r)
			}
		}
		// A finished result replacing the placeholder keeps the style.
		edits, err = ReplaceWithResult(d2, "t1", "done", false)
		if err != nil {
			t.Fatal(err)
		}
		gap := d.HeaderGap()
		wantBlock := "**Tool Result:** `t1`\n" + gap + "```\ndone\n```\n"
		if got := ApplyEdits(got, edits); !containsOnce(got, wantBlock) {
			t.Errorf("%s: result not written as %q:\n%s", c.name, wantBlock, got)
		}
	}
	// An immediate result (Result set) follows the style too.
	d := Parse(compactUse)
	edits, err := InsertPlaceholders(d, []PlaceholderRequest{{ID: "t1", Result: &ResultText{Content: "bad", IsError: true}}}, DialectFence)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ApplyEdits(compactUse, edits), compactUse+"@You:\n\n**Tool Result:** `t1` (error)\n```\nbad\n```\n"; got != want {
		t.Errorf("immediate result: %q, want %q", got, want)
	}
}

func containsOnce(s, sub string) bool { return strings.Count(s, sub) == 1 }

const jobMeta = "@Assistant:\n**Tool Use:** `bash` (`t1`)\n```json\n{\"command\":\"make\",\"flemma.background\":true}\n```\n\n" +
	"**Tool Use:** `bash` (`t2`)\n```json\n{\"command\":\"make\",\"flemma.background\":true}\n```\n\n" +
	"@You:\n**Tool Result:** `t1` (job=job_7f3a)\n```\nRunning in background as job_7f3a.\n```\n\n" +
	"**Tool Result:** `t2` (error job=job_lost)\n```\nRunning in background as job_lost.\n```\n"

// TestFlemmaFinishedResultMetadata: `(job=JOB)` is metadata on a finished
// result; `(error job=JOB)` is an error result with it (SPEC §1).
func TestFlemmaFinishedResultMetadata(t *testing.T) {
	d := assertPrintsBack(t, jobMeta)
	if diags := d.Diagnostics(); len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	for _, c := range []struct {
		id   string
		st   Status
		meta string
	}{{"t1", StatusDone, "job=job_7f3a"}, {"t2", StatusError, "job=job_lost"}} {
		r := d.ToolResult(c.id)
		if r == nil || r.Status != c.st || r.IsPlaceholder() || r.Meta() != c.meta || r.Dialect != DialectNone {
			t.Fatalf("%s: %+v meta %q", c.id, r, r.Meta())
		}
	}
	if _, err := SetStatus(d, "t1", StatusApproved); err == nil {
		t.Error("SetStatus on a finished result with metadata: want an error")
	}
	// Rewriting a finished result keeps its tokens.
	for _, c := range []struct {
		id, content string
		isError     bool
		want        string
	}{
		{"t1", "done", false, "**Tool Result:** `t1` (job=job_7f3a)\n```\ndone\n```\n"},
		{"t2", "Job lost", true, "**Tool Result:** `t2` (error job=job_lost)\n```\nJob lost\n```\n"},
		{"t1", "failed", true, "**Tool Result:** `t1` (error job=job_7f3a)\n```\nfailed\n```\n"},
	} {
		edits, err := ReplaceWithResult(d, c.id, c.content, c.isError)
		if err != nil {
			t.Fatal(err)
		}
		got := ApplyEdits(jobMeta, edits)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s rewritten:\n%s\nwant it to hold %q", c.id, got, c.want)
		}
		r := Parse(got).ToolResult(c.id)
		if wantSt := map[bool]Status{false: StatusDone, true: StatusError}[c.isError]; r.Status != wantSt || !strings.HasPrefix(r.Meta(), "job=") {
			t.Errorf("%s read back as %+v", c.id, r)
		}
	}
	// A suffix of other key=value tokens without a status stays a
	// placeholder (pending), as before.
	if r := Parse("@You:\n**Tool Result:** `x` (sandbox=false)\n```\n```\n").ToolResult("x"); r.Status != StatusPending {
		t.Errorf("(sandbox=false): %+v", r)
	}
}

// TestFlemmaMalformedToolUseKeepsLaterCalls restates Flemma's
// tests/flemma/parser_malformed_json_spec.lua (0.13, "Fixed parser bug
// where malformed JSON in a tool_use block caused all subsequent tool_use
// blocks in the same message to be skipped"). Flemma drops the broken
// call; chatls keeps it with its diagnostic (SPEC §1: it gets an error
// result) — the later calls are there in both.
func TestFlemmaMalformedToolUseKeepsLaterCalls(t *testing.T) {
	for _, c := range []struct {
		name, text string
		valid      []string // valid calls, in order
		broken     map[string]string
	}{
		{ // "skips malformed tool_use without eating subsequent tool_use blocks"
			"bad then good", "@Assistant:\n**Tool Use:** `tool_a` (`id_a`)\n\n```json\n{bad json here\n```\n\n**Tool Use:** `tool_b` (`id_b`)\n\n```json\n{\"valid\": true}\n```\n",
			[]string{"id_b"}, map[string]string{"id_a": CodeToolInputInvalidJSON}},
		{ // "parses tool_use blocks after malformed one in the same message"
			"good bad good", "@Assistant:\n**Tool Use:** `first` (`id_1`)\n\n```json\n{\"good\": 1}\n```\n\n**Tool Use:** `bad` (`id_2`)\n\n```json\n{broken\n```\n\n**Tool Use:** `third` (`id_3`)\n\n```json\n{\"also_good\": 2}\n```\n",
			[]string{"id_1", "id_3"}, map[string]string{"id_2": CodeToolInputInvalidJSON}},
		{"unclosed fence then a compact call", "@Assistant:\n**Tool Use:** `bash` (`u1`)\n```json\n{\"command\":\n**Tool Use:** `read` (`u2`)\n```json\n{\"path\":\"a\"}\n```\n",
			[]string{"u2"}, map[string]string{"u1": CodeToolUseUnclosedFence}},
		{"no fence then a call", "@Assistant:\n**Tool Use:** `bash` (`n1`)\nsome text\n**Tool Use:** `read` (`n2`)\n```json\n{}\n```\n",
			[]string{"n2"}, map[string]string{"n1": CodeToolUseNoFence}},
	} {
		d := assertPrintsBack(t, c.text)
		var valid []string
		for _, u := range d.Message(0).ToolUses {
			if u.Valid() {
				valid = append(valid, u.ID)
			} else if _, ok := c.broken[u.ID]; !ok {
				t.Errorf("%s: %s unexpectedly broken: %s", c.name, u.ID, u.InputError)
			}
		}
		if strings.Join(valid, ",") != strings.Join(c.valid, ",") {
			t.Errorf("%s: valid calls %v, want %v", c.name, valid, c.valid)
		}
		for id, code := range c.broken {
			if u := d.ToolUse(id); u == nil || u.Valid() {
				t.Errorf("%s: broken call %s: %+v", c.name, id, u)
			}
			found := false
			for _, dg := range d.Diagnostics() {
				found = found || dg.ToolID == id && dg.Code == code
			}
			if !found {
				t.Errorf("%s: no %s diagnostic for %s: %v", c.name, code, id, d.Diagnostics())
			}
		}
	}
}

// TestFlemmaUnterminatedThinking: an unclosed <thinking> runs to the end
// of its message and stays thinking (0.14); what it holds is not
// structure, and the next message is read.
func TestFlemmaUnterminatedThinking(t *testing.T) {
	text := "@Assistant:\n<thinking>\nplan\n**Tool Use:** `bash` (`t_in`)\n```json\n{}\n```\n\n@You:\nnext\n"
	d := assertPrintsBack(t, text)
	if d.MessageCount() != 2 || d.Message(1).Role != "You" {
		t.Fatalf("%d messages", d.MessageCount())
	}
	th := d.Message(0).Thinking()
	if len(th) != 1 || th[0].Span.End != d.Message(0).Span.End || d.ThinkingClosed(th[0]) {
		t.Fatalf("thinking: %+v (message ends at %d)", th, d.Message(0).Span.End)
	}
	if len(d.ToolUses()) != 0 {
		t.Fatalf("a tool use inside unclosed thinking was read: %v", d.ToolUses())
	}
	if c := d.ThinkingContent(th[0]); !strings.Contains(c, "plan") || !strings.Contains(c, "t_in") {
		t.Fatalf("thinking content %q", c)
	}
}

// TestFlemmaFileRefOptions: file references with several `;key=value`
// options, a quoted value holding `;` and spaces (Flemma 0.14).
func TestFlemmaFileRefOptions(t *testing.T) {
	for _, c := range []struct {
		line, raw, path, mime string
		opts                  []KV
	}{
		{"see @./a.txt;type=text/plain.", "@./a.txt;type=text/plain", "./a.txt", "text/plain", []KV{{"type", "text/plain"}}},
		{"@./doc.pdf;type=application/pdf;pages=1-3 now", "@./doc.pdf;type=application/pdf;pages=1-3", "./doc.pdf", "application/pdf", []KV{{"type", "application/pdf"}, {"pages", "1-3"}}},
		{`@./a.png;title="x; y z";type=image/png!`, `@./a.png;title="x; y z";type=image/png`, "./a.png", "image/png", []KV{{"title", "x; y z"}, {"type", "image/png"}}},
		{`@./a.png;title="q;w"`, `@./a.png;title="q;w"`, "./a.png", "", []KV{{"title", "q;w"}}},
		{`@./a.png;title="open end`, `@./a.png;title="open`, `./a.png;title="open`, "", nil}, // an unterminated quote is no option (read as before 0.14)
		{"@./my%20file.txt;x=1.", "@./my%20file.txt;x=1", "./my file.txt", "", []KV{{"x", "1"}}},
		{"@./plain.txt.", "@./plain.txt", "./plain.txt", "", nil},
	} {
		text := "@You:\n" + c.line + "\n"
		d := assertPrintsBack(t, text)
		refs := d.Message(0).FileRefs()
		if len(refs) != 1 {
			t.Errorf("%s: %d refs", c.line, len(refs))
			continue
		}
		r := refs[0]
		if got := d.Slice(r.Span.Start, r.Span.End); got != c.raw || r.Path != c.path || r.MIME != c.mime || fmt.Sprint(r.Options) != fmt.Sprint(c.opts) {
			t.Errorf("%s: raw %q path %q mime %q opts %v; want %q %q %q %v", c.line, got, r.Path, r.MIME, r.Options, c.raw, c.path, c.mime, c.opts)
		}
	}
}
