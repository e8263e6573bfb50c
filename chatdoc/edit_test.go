package chatdoc

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// applyAndDiff applies edits, checks they are minimal (no whole-document
// replacement), writes the unified diff to a golden file, and returns the
// reparsed document.
func applyAndDiff(t *testing.T, d *Document, edits []TextEdit, err error, name string) *Document {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		if e.Span.Len() >= len(d.Text())/2 && len(d.Text()) > 200 {
			t.Fatalf("edit %v is not minimal", e.Span)
		}
	}
	out := ApplyEdits(d.Text(), edits)
	golden(t, filepath.Join("edits", name+".diff"), udiff.Unified("before", "after", d.Text(), out))
	return Parse(out)
}

func TestApplyEditsNoEditsIsIdentity(t *testing.T) {
	for name, text := range corpusTexts(t) {
		if ApplyEdits(text, nil) != text || ApplyEdits(text, []TextEdit{}) != text {
			t.Fatalf("%s: not byte-identical", name)
		}
	}
	if got := ApplyEdits("abcdef", []TextEdit{{Span{4, 5}, "X"}, {Span{0, 1}, "Y"}, {Span{2, 2}, "1"}, {Span{2, 2}, "2"}}); got != "Yb12cdXf" {
		t.Fatalf("got %q", got)
	}
	if got := ApplyEdits("abc", []TextEdit{{Span{0, 2}, "X"}, {Span{1, 3}, "Y"}, {Span{2, 9}, "Z"}}); got != "Xc" {
		t.Fatalf("overlapping or out-of-range edits: got %q", got)
	}
}

func statuses(d *Document) map[string]Status {
	out := map[string]Status{}
	for _, r := range d.ToolResults() {
		out[r.ID] = r.Status
	}
	return out
}

func TestInsertPlaceholders(t *testing.T) {
	unanswered := parseCorpus(t, "02-parallel-unanswered")
	reqs := []PlaceholderRequest{{ID: "call_r1", Status: StatusApproved}, {ID: "call_b2"}, {ID: "call_w3", Status: StatusApproved}}

	t.Run("fence dialect into the final You", func(t *testing.T) {
		edits, err := InsertPlaceholders(unanswered, reqs, DialectFence)
		d := applyAndDiff(t, unanswered, edits, err, "insert-fence")
		assertResults(t, d, "call_r1", StatusApproved, "call_b2", StatusPending, "call_w3", StatusApproved)
		for _, r := range d.ToolResults() {
			if r.Dialect != DialectFence || r.Message != 2 {
				t.Fatalf("%+v", r)
			}
		}
	})
	t.Run("suffix dialect with extra tokens", func(t *testing.T) {
		r := []PlaceholderRequest{{ID: "call_b2", Extra: []KV{{"sandbox", "false"}}}, {ID: "call_r1"}}
		edits, err := InsertPlaceholders(unanswered, r, DialectSuffix)
		d := applyAndDiff(t, unanswered, edits, err, "insert-suffix")
		assertResults(t, d, "call_r1", StatusPending, "call_b2", StatusPending)
		if got := d.ToolResult("call_b2"); got.Dialect != DialectSuffix || len(got.Extra()) != 1 {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("creates the You message", func(t *testing.T) {
		d0 := Parse(strings.TrimSuffix(unanswered.Text(), "@You:\n"))
		edits, err := InsertPlaceholders(d0, reqs[:2], DialectFence)
		d := applyAndDiff(t, d0, edits, err, "insert-create-you")
		assertResults(t, d, "call_r1", StatusApproved, "call_b2", StatusPending)
		if len(d.Messages()) != 3 || d.Messages()[2].Role != "You" || len(d.Diagnostics()) != 0 {
			t.Fatalf("messages %v diags %v", roles(d), d.Diagnostics())
		}
	})
	t.Run("creates the You message before a following message", func(t *testing.T) {
		d0 := Parse(strings.TrimSuffix(unanswered.Text(), "@You:\n") + "@Notes:\nkeep me\n")
		edits, err := InsertPlaceholders(d0, reqs[:1], DialectFence)
		d := applyAndDiff(t, d0, edits, err, "insert-create-you-before-notes")
		if got := roles(d); strings.Join(got, ",") != "You,Assistant,You,Notes" {
			t.Fatalf("roles %v", got)
		}
		assertResults(t, d, "call_r1", StatusApproved)
	})
	t.Run("after results for earlier calls, before later ones", func(t *testing.T) {
		d1 := Parse(ApplyEdits(unanswered.Text(), mustEdits(t)(InsertPlaceholders(unanswered, reqs[2:], DialectFence))))
		d2 := Parse(ApplyEdits(d1.Text(), mustEdits(t)(InsertPlaceholders(d1, reqs[:1], DialectFence))))
		edits, err := InsertPlaceholders(d2, reqs[1:2], DialectFence)
		d := applyAndDiff(t, d2, edits, err, "insert-between")
		var ids []string
		for _, r := range d.ToolResults() {
			ids = append(ids, r.ID)
		}
		if strings.Join(ids, ",") != "call_r1,call_b2,call_w3" {
			t.Fatalf("order %v", ids)
		}
	})
	t.Run("before the user's text", func(t *testing.T) {
		d0 := Parse(unanswered.Text() + "and also this\n")
		edits, err := InsertPlaceholders(d0, reqs[:1], DialectFence)
		d := applyAndDiff(t, d0, edits, err, "insert-before-text")
		assertResults(t, d, "call_r1", StatusApproved)
		if !strings.HasSuffix(d.Text(), "```\n\nand also this\n") {
			t.Fatalf("text %q", d.Text())
		}
	})
	t.Run("CRLF stays CRLF", func(t *testing.T) {
		d0 := Parse(strings.ReplaceAll(unanswered.Text(), "\n", "\r\n"))
		edits, err := InsertPlaceholders(d0, reqs, DialectFence)
		d := applyAndDiff(t, d0, edits, err, "insert-crlf")
		if strings.Count(d.Text(), "\n") != strings.Count(d.Text(), "\r\n") {
			t.Fatal("a bare LF was written")
		}
		assertResults(t, d, "call_r1", StatusApproved, "call_b2", StatusPending, "call_w3", StatusApproved)
	})
	t.Run("errors", func(t *testing.T) {
		if _, err := InsertPlaceholders(unanswered, []PlaceholderRequest{{ID: "nope"}}, DialectFence); err == nil {
			t.Error("unknown ID accepted")
		}
		answered := parseCorpus(t, "01-pending-bash")
		if _, err := InsertPlaceholders(answered, []PlaceholderRequest{{ID: "toolu_01A"}}, DialectFence); err == nil {
			t.Error("second placeholder accepted")
		}
	})
}

func mustEdits(t *testing.T) func([]TextEdit, error) []TextEdit {
	return func(e []TextEdit, err error) []TextEdit {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
}

func assertResults(t *testing.T, d *Document, pairs ...any) {
	t.Helper()
	got := statuses(d)
	if len(got) != len(pairs)/2 {
		t.Fatalf("results %v, want %v", got, pairs)
	}
	for i := 0; i < len(pairs); i += 2 {
		if got[pairs[i].(string)] != pairs[i+1].(Status) {
			t.Fatalf("results %v, want %v", got, pairs)
		}
	}
	for _, dg := range d.Diagnostics() {
		if dg.Severity == SeverityError {
			t.Fatalf("edit produced a diagnostic: %+v", dg)
		}
	}
}

func TestSetStatus(t *testing.T) {
	tests := []struct {
		doc, id string
		status  Status
		dialect Dialect
	}{
		{"01-pending-bash", "toolu_01A", StatusApproved, DialectFence},
		{"03-suffix-dialect", "toolu_ls1", StatusRejected, DialectSuffix},
		{"03-suffix-dialect", "toolu_sh2", StatusApproved, DialectSuffix},
		{"04-legacy-pending", "toolu_old1", StatusApproved, DialectLegacy},
		{"11-crlf-unicode", "toolu_crlf", StatusDenied, DialectFence},
	}
	for _, tt := range tests {
		t.Run(tt.doc+"-"+tt.id, func(t *testing.T) {
			d0 := parseCorpus(t, tt.doc)
			edits, err := SetStatus(d0, tt.id, tt.status)
			if len(edits) != 1 || edits[0].Span != d0.ToolResult(tt.id).StatusSpan() {
				t.Fatalf("edits %v: not just the status word", edits)
			}
			d := applyAndDiff(t, d0, edits, err, "status-"+tt.doc+"-"+tt.id)
			if r := d.ToolResult(tt.id); r.Status != tt.status || r.Dialect != tt.dialect {
				t.Fatalf("%+v", r)
			}
			if again, _ := SetStatus(d, tt.id, tt.status); len(again) != 0 {
				t.Fatalf("setting the same status edits: %v", again)
			}
		})
	}
	t.Run("fence info without status token", func(t *testing.T) {
		d0 := Parse("@Assistant:\n**Tool Use:** `x` (`a`)\n```json\n{}\n```\n@You:\n\n**Tool Result:** `a`\n\n```flemma:tool sandbox=false\n```\n")
		if r := d0.ToolResult("a"); r.Status != StatusPending || r.Dialect != DialectFence {
			t.Fatalf("%+v", r)
		}
		d := Parse(ApplyEdits(d0.Text(), mustEdits(t)(SetStatus(d0, "a", StatusApproved))))
		if r := d.ToolResult("a"); r.Status != StatusApproved || r.Extra()[0] != (KV{"sandbox", "false"}) {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("finished results have no status", func(t *testing.T) {
		if _, err := SetStatus(parseCorpus(t, "05-nested-fences"), "toolu_w1", StatusApproved); err == nil {
			t.Fatal("no error")
		}
	})
}

func TestReplaceWithResult(t *testing.T) {
	t.Run("fence sized to the content", func(t *testing.T) {
		d0 := parseCorpus(t, "01-pending-bash")
		content := "--- FAIL: TestX\n````\nnested ``` fence\n"
		edits, err := ReplaceWithResult(d0, "toolu_01A", content, false)
		d := applyAndDiff(t, d0, edits, err, "result-backticks")
		r := d.ToolResult("toolu_01A")
		if r.Status != StatusDone || r.Content != content || r.Fence.Ticks != 5 || len(d.Messages()) != 4 {
			t.Fatalf("%+v content %q", r, r.Content)
		}
	})
	t.Run("error form on a suffix placeholder", func(t *testing.T) {
		d0 := parseCorpus(t, "03-suffix-dialect")
		edits, err := ReplaceWithResult(d0, "toolu_sh2", "fatal: not a git repository\n\nCommand exited with code 128", true)
		d := applyAndDiff(t, d0, edits, err, "result-error")
		if r := d.ToolResult("toolu_sh2"); r.Status != StatusError || r.IsPlaceholder() || r.Dialect != DialectNone {
			t.Fatalf("%+v", r)
		}
		if d.ToolResult("toolu_ls1").Status != StatusApproved {
			t.Fatal("the other placeholder changed")
		}
	})
	t.Run("CRLF content and document", func(t *testing.T) {
		d0 := parseCorpus(t, "11-crlf-unicode")
		edits, err := ReplaceWithResult(d0, "toolu_crlf", "3 café.txt\n2 日本.txt\n5 total", false)
		d := applyAndDiff(t, d0, edits, err, "result-crlf")
		if strings.Count(d.Text(), "\n") != strings.Count(d.Text(), "\r\n") {
			t.Fatal("a bare LF was written")
		}
		if r := d.ToolResult("toolu_crlf"); r.Content != "3 café.txt\r\n2 日本.txt\r\n5 total" {
			t.Fatalf("content %q", r.Content)
		}
	})
	t.Run("empty content", func(t *testing.T) {
		d0 := parseCorpus(t, "01-pending-bash")
		d := Parse(ApplyEdits(d0.Text(), mustEdits(t)(ReplaceWithResult(d0, "toolu_01A", "", false))))
		if r := d.ToolResult("toolu_01A"); r.Status != StatusDone || r.Content != "" || !r.Fence.Closed() {
			t.Fatalf("%+v", r)
		}
	})
}
