package contextwin

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/google/go-cmp/cmp"
)

// compactExample is a conversation with frontmatter, a system message, a
// finished call and a pending one: the example of docs/context.md.
var compactExample = doc(
	"```json\n{ \"flemma\": { \"tools\": { \"autoApprove\": [\"$readonly\"] } }, \"project\": \"chatls\" }\n```\n\n",
	msg("System", "You are a careful Go engineer on {{ project }}."),
	msg("You", "The tests in ./parser fail since yesterday. Find out why; don't touch the lexer."),
	msg("Assistant", "Let me run them.", "", bash("t1", "go test ./parser")),
	msg("You", result("t1", "--- FAIL: TestNumbers (0.00s)\n    parse_test.go:41: 1e3: got 1, want 1000\nFAIL")),
	msg("Assistant", "The exponent is dropped: `parseNumber` stops at `e`. I'll fix it in parser/number.go."),
	msg("You", "Good. Use strconv, not a hand-written loop."),
	msg("Assistant", "Done: parser/number.go now calls strconv.ParseFloat.", "", bash("t2", "go test ./parser")),
	msg("You", result("t2", "ok  \texample.com/parser\t0.004s")),
	msg("Assistant", "The tests pass."),
	msg("You", "Now make the error message say which number failed."),
	msg("Assistant", bash("t3", "grep -n Errorf parser/number.go")),
	msg("You", pending("t3")),
)

const exampleSummary = `Goal: fix the failing tests in ./parser.

Decisions: exponents were dropped because parseNumber stopped at "e"; parser/number.go now uses strconv.ParseFloat (the user asked for strconv, not a hand-written loop).

Files touched: parser/number.go.

Open work: none from this part.

Constraints: don't touch the lexer; use strconv.`

func TestCompact(t *testing.T) {
	d := mustParse(t, compactExample)
	cut, err := CutPoint(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Cut{From: 1, To: 9, Keep: -1, AtTurn: true}); cut != want {
		t.Fatalf("CutPoint = %+v, want %+v", cut, want)
	}
	c, err := Compact(d, cut, "/work/notes/parser.archive-1.chat", exampleSummary)
	if err != nil {
		t.Fatal(err)
	}
	after := c.Apply(d)
	golden(t, "compact/parser.chat", compactExample)
	golden(t, "compact/parser.compacted.chat", after)
	golden(t, "compact/parser.archive-1.chat", string(c.Archive))
	if c.Moved != 8 {
		t.Errorf("Moved = %d, want 8", c.Moved)
	}
	checkCompaction(t, d, cut, c)
}

// checkCompaction checks what every compaction must hold: the archive
// and the new document parse without errors, the archive holds the moved
// messages verbatim after the frontmatter, and everything outside the
// edit is byte-identical.
func checkCompaction(t *testing.T, d *chatdoc.Document, cut Cut, c Compaction) {
	t.Helper()
	text := d.Text()
	after := c.Apply(d)
	nd := chatdoc.Parse(after)
	ad := chatdoc.Parse(string(c.Archive))
	for name, p := range map[string]*chatdoc.Document{"compacted document": nd, "archive": ad} {
		for _, diag := range p.Diagnostics() {
			if diag.Severity <= chatdoc.SeverityWarning {
				t.Errorf("%s: %s at %v", name, diag.Message, diag.Span)
			}
		}
	}
	start, end := d.MessageSpan(cut.From).Start, messageStart(d, cut.To)
	if !strings.HasPrefix(after, text[:start]) || !strings.HasSuffix(after, text[end:]) {
		t.Errorf("text outside the moved messages changed")
	}
	var moved []string
	for i := cut.From; i < cut.To; i++ {
		if i != cut.Keep {
			s := d.MessageSpan(i)
			moved = append(moved, text[s.Start:s.End])
		}
	}
	var archived []string
	for _, m := range ad.Messages() {
		archived = append(archived, string(c.Archive[m.Span.Start:m.Span.End]))
	}
	if diff := cmp.Diff(moved, archived); diff != "" {
		t.Errorf("archive's messages (-moved +archived):\n%s", diff)
	}
	if d.Frontmatter != nil && (ad.Frontmatter == nil || ad.Frontmatter.Code != d.Frontmatter.Code) {
		t.Errorf("archive's frontmatter %+v, want the document's", ad.Frontmatter)
	}
	// The kept messages follow the summary message, unchanged.
	wantMsgs := d.MessageCount() - c.Moved + 1
	if nd.MessageCount() != wantMsgs {
		t.Fatalf("compacted document has %d messages, want %d", nd.MessageCount(), wantMsgs)
	}
	summaryAt := cut.From
	if cut.Keep >= 0 {
		summaryAt++
	}
	if m := nd.Message(summaryAt); m.Role != "You" || len(m.ToolUses)+len(m.ToolResults) != 0 {
		t.Errorf("message %d of the compacted document is %s with %d calls and %d results, want the summary", summaryAt, m.Role, len(m.ToolUses), len(m.ToolResults))
	}
	for i := cut.To; i < d.MessageCount(); i++ {
		s, ns := d.MessageSpan(i), nd.MessageSpan(i-c.Moved+1)
		if text[s.Start:s.End] != after[ns.Start:ns.End] {
			t.Errorf("kept message %d changed", i)
		}
	}
}

func TestCompactShapes(t *testing.T) {
	tests := []struct {
		name, text, summary string
		keep                int // messages' tokens kept
		wantNew             string
	}{{
		name:    "CRLF: the summary message too",
		text:    strings.ReplaceAll(doc(msg("You", "q1"), msg("Assistant", "a1"), msg("You", "q2"), msg("Assistant", "a2"), msg("You", "")), "\n", "\r\n"),
		summary: "Line one.\nLine two.",
		wantNew: "@You:\r\n<!-- chatls:compacted 4 messages into x.archive-1.chat -->\r\n\r\nLine one.\r\nLine two.\r\n\r\n@You:\r\n\r\n",
	}, {
		name:    "the system prompt among the moved messages stays, before the summary",
		text:    doc(msg("You", "q1"), msg("System", "Be brief."), msg("Assistant", "a1"), msg("You", "q2")),
		summary: "S.",
		wantNew: "@System:\nBe brief.\n\n@You:\n<!-- chatls:compacted 2 messages into x.archive-1.chat -->\n\nS.\n\n@You:\nq2\n\n",
	}, {
		name: "a summary that looks like structure stays text",
		text: doc(msg("You", "q1"), msg("Assistant", "a1"), msg("You", "q2")),
		summary: "@Assistant:\n**Tool Use:** `bash` (`x1`)\n\n```json\n{}\n```\n**Tool Result:** `x1`\n" +
			"@You: hi\n```\nan unclosed fence",
		wantNew: "@You:\n<!-- chatls:compacted 2 messages into x.archive-1.chat -->\n\n" +
			" @Assistant:\n **Tool Use:** `bash` (`x1`)\n\n```json\n{}\n```\n **Tool Result:** `x1`\n" +
			" @You: hi\n```\nan unclosed fence\n```\n\n@You:\nq2\n\n",
	}, {
		name:    "an empty summary: the line alone",
		text:    doc(msg("You", "q1"), msg("Assistant", "a1"), msg("You", "q2")),
		wantNew: "@You:\n<!-- chatls:compacted 2 messages into x.archive-1.chat -->\n\n@You:\nq2\n\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.text)
			cut, err := CutPoint(d, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Compact(d, cut, "dir/x.archive-1.chat", tt.summary)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantNew, c.Apply(d)); diff != "" {
				t.Errorf("compacted document (-want +got):\n%s", diff)
			}
			checkCompaction(t, d, cut, c)
		})
	}
}

func TestCompactRejectsAStaleCut(t *testing.T) {
	d := chatdoc.Parse(doc(msg("You", "q1"), msg("Assistant", "a1")))
	for _, cut := range []Cut{{From: 0, To: 3, Keep: -1}, {From: 1, To: 1, Keep: -1}, {From: 0, To: 1, Keep: 1}} {
		if _, err := Compact(d, cut, "x.archive-1.chat", ""); err == nil || !strings.Contains(err.Error(), "find the cut again") {
			t.Errorf("Compact(%+v) error = %v, want one that says to find the cut again", cut, err)
		}
	}
}

func TestArchiveName(t *testing.T) {
	taken := map[string]bool{"notes/plan.archive-1.chat": true, "notes/plan.archive-2.chat": true}
	exists := func(p string) bool { return taken[p] }
	tests := []struct{ doc, want string }{
		{"notes/plan.chat", "notes/plan.archive-3.chat"},
		{"notes/other.chat", "notes/other.archive-1.chat"},
		{"plan", "plan.archive-1.chat"},
		{"/abs/dir/a.b.chat", "/abs/dir/a.b.archive-1.chat"},
		{"", "untitled.archive-1.chat"},
	}
	for _, tt := range tests {
		if got := ArchiveName(tt.doc, exists); got != tt.want {
			t.Errorf("ArchiveName(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}
