package contextwin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/google/go-cmp/cmp"
)

// bigOutput is a command output of n numbered lines (about 40 bytes each).
func bigOutput(n int, prefix string) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("%s line %03d: ok  \tgithub.com/example/pkg", prefix, i+1)
	}
	return strings.Join(lines, "\n")
}

// A markdown file with fences in it: its result's fence is longer.
var fencedOutput = "# Notes\n\n```go\nfunc f() {}\n```\n\n" + bigOutput(80, "md") + "\n```\nunclosed in the content\n"

var trimExample = doc(
	msg("System", "Be careful."),
	msg("You", "q1"),
	msg("Assistant", bash("t1", "go test ./...")),
	msg("You", result("t1", bigOutput(120, "t1"))),
	msg("Assistant", "Now two at once.", "", bash("t2", "cat NOTES.md"), bash("t3", "pwd")),
	msg("You", result("t2", fencedOutput), result("t3", "/work")),
	msg("Assistant", bash("t4", "go vet ./...")),
	msg("You", "**Tool Result:** `t4` (error)\n\n```\n"+bigOutput(60, "t4")+"\n```\n"),
	msg("Assistant", bash("t5", "make")),
	msg("You", pending("t5")),
	msg("Assistant", "ok"),
	msg("You", "q3 "+long), // 11: kept
	msg("Assistant", bash("t6", "go test ./...")),
	msg("You", result("t6", bigOutput(120, "t6"))),
	msg("Assistant", "done"),
	msg("You", ""),
)

func TestTrim(t *testing.T) {
	d := mustParse(t, trimExample)
	keep := keepUpTo(t, d, 11)
	tr, err := Trim(d, keep, "/tmp/x/notes.archive-2.chat")
	if err != nil {
		t.Fatal(err)
	}
	after := chatdoc.ApplyEdits(trimExample, tr.Edits)
	golden(t, "trim/notes.chat", trimExample)
	golden(t, "trim/notes.trimmed.chat", after)
	golden(t, "trim/notes.archive-2.chat", string(tr.Archive))

	// t1, t2 and the error result t4 are trimmed; t3 is small, t5 pending
	// (and its cycle open, as is everything after it), t6 kept.
	trimmed := map[string]bool{"t1": true, "t2": true, "t4": true}
	if tr.Trimmed != len(trimmed) {
		t.Errorf("Trimmed = %d, want %d", tr.Trimmed, len(trimmed))
	}
	nd := chatdoc.Parse(after)
	ad := chatdoc.Parse(string(tr.Archive))
	for name, p := range map[string]*chatdoc.Document{"trimmed document": nd, "archive": ad} {
		for _, diag := range p.Diagnostics() {
			if diag.Severity <= chatdoc.SeverityWarning {
				t.Errorf("%s: %s at %v", name, diag.Message, diag.Span)
			}
		}
	}
	if nd.MessageCount() != d.MessageCount() || len(nd.ToolResults()) != len(d.ToolResults()) {
		t.Fatalf("trimmed document has %d messages and %d results, want %d and %d",
			nd.MessageCount(), len(nd.ToolResults()), d.MessageCount(), len(d.ToolResults()))
	}
	saved := 0
	for i, r := range d.ToolResults() {
		nr := nd.ToolResults()[i]
		if nr.ID != r.ID || nr.Status != r.Status || nr.Fence.Ticks != r.Fence.Ticks || nr.Message != r.Message {
			t.Errorf("result %s became %s (%q, %d ticks)", r.ID, nr.ID, nr.Status, nr.Fence.Ticks)
		}
		if !trimmed[r.ID] {
			if nr.Content != r.Content {
				t.Errorf("result %s changed", r.ID)
			}
			continue
		}
		want := strings.TrimSuffix(firstLines(r.Content+"\n", "\n"), "\n") + "\n" + TrimmedLine("notes.archive-2.chat")
		if nr.Content != want {
			t.Errorf("result %s trimmed to\n%s\nwant\n%s", r.ID, nr.Content, want)
		}
		saved += len(r.Content) - len(nr.Content)
		ar := ad.ToolResult(r.ID)
		if ar == nil || ar.Content != r.Content || ar.Status != r.Status {
			t.Errorf("archive's result %s = %+v, want the whole output", r.ID, ar)
		}
		if au := ad.ToolUse(r.ID); au == nil || au.RawInput != d.ToolUse(r.ID).RawInput {
			t.Errorf("archive's call %s = %+v, want the document's", r.ID, au)
		}
	}
	if tr.Saved != saved {
		t.Errorf("Saved = %d, want %d", tr.Saved, saved)
	}
	if len(ad.ToolResults()) != len(trimmed) {
		t.Errorf("archive holds %d results, want %d", len(ad.ToolResults()), len(trimmed))
	}
}

func TestTrimCRLF(t *testing.T) {
	text := strings.ReplaceAll(doc(
		msg("You", "q1"),
		msg("Assistant", bash("t1", "go test ./...")),
		msg("You", result("t1", bigOutput(120, "t1"))),
		msg("Assistant", "ok"),
		msg("You", "q2 "+long),
	), "\n", "\r\n")
	d := mustParse(t, text)
	tr, err := Trim(d, keepUpTo(t, d, 4), "notes.archive-1.chat")
	if err != nil {
		t.Fatal(err)
	}
	after := chatdoc.ApplyEdits(text, tr.Edits)
	if strings.Count(after, "\n") != strings.Count(after, "\r\n") || strings.Count(string(tr.Archive), "\n") != strings.Count(string(tr.Archive), "\r\n") {
		t.Errorf("a line ending without CR:\n%q\n%q", after, tr.Archive)
	}
	if got := chatdoc.Parse(after).ToolResult("t1").Content; !strings.HasSuffix(got, "t1 line 010: ok  \tgithub.com/example/pkg\r\n[trimmed; full output in notes.archive-1.chat]") {
		t.Errorf("trimmed content ends %q", got[max(0, len(got)-120):])
	}
	if got := chatdoc.Parse(string(tr.Archive)).ToolResult("t1").Content; got != d.ToolResult("t1").Content {
		t.Errorf("archive's output is not the whole output")
	}
}

func TestTrimNothing(t *testing.T) {
	text := doc(msg("You", "q1"), msg("Assistant", bash("t1", "ls")), msg("You", result("t1", "small")), msg("You", "q2 "+long))
	d := mustParse(t, text)
	_, err := Trim(d, keepUpTo(t, d, 3), "x.archive-1.chat")
	want := "nothing to trim: no finished tool output before the newest 0 tokens is larger than 2 KB"
	if err == nil || !strings.HasPrefix(err.Error(), "nothing to trim: no finished tool output before the newest") {
		t.Errorf("Trim error = %v, want %q", err, want)
	}
}

func TestFirstLines(t *testing.T) {
	long := strings.Repeat("x", 1500)
	tests := []struct{ name, raw, nl, want string }{
		{"ten lines", bigOutput(30, "a") + "\n", "\n", bigOutput(10, "a") + "\n"},
		{"fewer lines within 1 KB", strings.Repeat(strings.Repeat("y", 299)+"\n", 5), "\n", strings.Repeat(strings.Repeat("y", 299)+"\n", 3)},
		{"a long first line: its first 1 KB", long + "\nmore\n", "\n", long[:1024] + "\n"},
		{"cut at a character's start", strings.Repeat("é", 800) + "\n", "\n", strings.Repeat("é", 512) + "\n"},
		{"cut before a 3-byte character", "a" + strings.Repeat("€", 500), "\r\n", "a" + strings.Repeat("€", 341) + "\r\n"},
		{"CRLF kept", "one\r\ntwo\r\n", "\r\n", "one\r\ntwo\r\n"},
		{"no final line ending", "one\ntwo", "\n", "one\ntwo\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, firstLines(tt.raw, tt.nl)); diff != "" {
				t.Errorf("firstLines (-want +got):\n%s", diff)
			}
		})
	}
}
