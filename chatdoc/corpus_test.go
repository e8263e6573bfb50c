package chatdoc

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/<name>, rewriting it with -update.
func golden(t *testing.T, name, got string) { testfs.Golden(t, name, got, *update) }

func TestCorpusGolden(t *testing.T) {
	for name, text := range corpusTexts(t) {
		t.Run(name, func(t *testing.T) {
			doc := Parse(text)
			if doc.Text() != text || ApplyEdits(doc.Text(), nil) != text {
				t.Fatal("parse then print is not byte-identical")
			}
			js, err := ParseJSON(doc, doc.Diagnostics())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("corpus", strings.TrimSuffix(name, ".chat")+".golden"),
				dump(doc)+"--- chatls parse --json\n"+string(js)+"\n")
		})
	}
}

func parseCorpus(t *testing.T, name string) *Document {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/corpus", name+".chat"))
	if err != nil {
		t.Fatal(err)
	}
	return Parse(string(b))
}

func codes(d *Document) map[string][]string {
	out := map[string][]string{}
	for _, dg := range d.Diagnostics() {
		out[dg.Code] = append(out[dg.Code], dg.ToolID)
	}
	return out
}

func roles(d *Document) []string {
	var out []string
	for _, m := range d.Messages() {
		out = append(out, m.Role)
	}
	return out
}

// The corpus README's "what must happen", as far as the parser decides it.
func TestCorpusExpectations(t *testing.T) {
	t.Run("01 pending bash in the fence dialect", func(t *testing.T) {
		d := parseCorpus(t, "01-pending-bash")
		r := d.ToolResult("toolu_01A")
		if r == nil || r.Status != StatusPending || r.Dialect != DialectFence || d.ToolUse("toolu_01A").Input()["command"] != "go test ./..." {
			t.Fatalf("got %+v", r)
		}
		if len(d.Diagnostics()) != 0 {
			t.Fatalf("diagnostics: %v", d.Diagnostics())
		}
	})
	t.Run("02 three calls, no results, final You", func(t *testing.T) {
		d := parseCorpus(t, "02-parallel-unanswered")
		if len(d.ToolUses()) != 3 || len(d.ToolResults()) != 0 || !slices.Equal(roles(d), []string{"You", "Assistant", "You"}) {
			t.Fatalf("uses %d results %d roles %v", len(d.ToolUses()), len(d.ToolResults()), roles(d))
		}
	})
	t.Run("03 suffix dialect with an extra token", func(t *testing.T) {
		d := parseCorpus(t, "03-suffix-dialect")
		ls, sh := d.ToolResult("toolu_ls1"), d.ToolResult("toolu_sh2")
		if ls.Status != StatusApproved || ls.Dialect != DialectSuffix || sh.Status != StatusPending || sh.Dialect != DialectSuffix {
			t.Fatalf("ls %+v sh %+v", ls, sh)
		}
		if !slices.Equal(sh.Extra(), []KV{{"sandbox", "false"}}) {
			t.Fatalf("extra %v", sh.Extra())
		}
	})
	t.Run("04 legacy pending", func(t *testing.T) {
		r := parseCorpus(t, "04-legacy-pending").ToolResult("toolu_old1")
		if r.Status != StatusPending || r.Dialect != DialectLegacy {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("05 nested fences", func(t *testing.T) {
		d := parseCorpus(t, "05-nested-fences")
		if !slices.Equal(roles(d), []string{"You", "Assistant", "You", "Assistant", "You"}) {
			t.Fatalf("roles %v", roles(d))
		}
		for _, r := range d.ToolResults() {
			if r.Status != StatusDone || r.IsPlaceholder() {
				t.Fatalf("%s not finished", r.ID)
			}
		}
		if !strings.Contains(d.ToolResult("toolu_r2").Content, "@Assistant:\nthis line is inside") {
			t.Fatal("fenced @Assistant: line split the message")
		}
		if !strings.Contains(d.ToolUse("toolu_w1").Input()["content"].(string), "```go") {
			t.Fatal("4-backtick tool-use fence not read")
		}
		if n := len(d.Messages()[4].Fences); n != 0 {
			t.Fatalf("```inline``` read as a fence (%d fences)", n)
		}
	})
	t.Run("08 every kind of error", func(t *testing.T) {
		d := parseCorpus(t, "08-malformed")
		c := codes(d)
		for code, id := range map[string]string{
			CodeInlineRoleMarker: "", CodeToolInputInvalidJSON: "toolu_bad1", CodeDuplicateToolID: "toolu_dup",
			CodeToolUseNoFence: "toolu_nofence", CodeOrphanResult: "toolu_orphan", CodeResultUnclosedFence: "toolu_unclosed",
		} {
			if !slices.Contains(c[code], id) {
				t.Errorf("missing %s for %q; got %v", code, id, c)
			}
		}
		if d.Diagnostics()[0].Code != CodeInlineRoleMarker || d.Lines.LineOf(d.Diagnostics()[0].Span.Start) != 0 {
			t.Errorf("inline marker not on line 1: %+v", d.Diagnostics()[0])
		}
		for _, id := range []string{"toolu_unknown", "toolu_schema"} { // later calls still parsed
			if u := d.ToolUse(id); u == nil || !u.Valid() {
				t.Errorf("%s not parsed", id)
			}
		}
		for _, dg := range d.Diagnostics() {
			if dg.Code == CodeToolUseNoFence && dg.Message != "Tool use requires a fenced code block with JSON input" ||
				dg.Code == CodeToolInputInvalidJSON && !strings.HasPrefix(dg.Message, "Failed to parse tool input: ") {
				t.Errorf("wrong text: %q", dg.Message)
			}
		}
	})
	t.Run("09 abort marker", func(t *testing.T) {
		d := parseCorpus(t, "09-aborted")
		if a := d.Messages()[1].Abort(); a == nil || a.Message != "Response interrupted by the user." {
			t.Fatalf("abort %+v", a)
		}
	})
	t.Run("10 thinking is opaque", func(t *testing.T) {
		d := parseCorpus(t, "10-thinking")
		if len(d.ToolUses()) != 1 || d.ToolUses()[0].ID != "toolu_f1" || d.ToolResult("toolu_f1") == nil {
			t.Fatalf("tool uses %v", d.ToolUses())
		}
		if n := len(d.Messages()[1].Thinking()) + len(d.Messages()[3].Thinking()); n != 3 || !d.Messages()[3].Thinking()[0].SelfClosing {
			t.Fatalf("thinking blocks %d", n)
		}
	})
	t.Run("12 approved placeholder is read as approved", func(t *testing.T) {
		d := parseCorpus(t, "12-untrusted-open")
		if r := d.ToolResult("toolu_evil3"); r.Status != StatusApproved {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("13 user-filled placeholders keep their text", func(t *testing.T) {
		d := parseCorpus(t, "13-user-filled")
		if r := d.ToolResult("toolu_ssh2"); r.Status != StatusApproved || r.Content != "I pasted this myself: / is 41% full." {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("14 rejected and denied", func(t *testing.T) {
		d := parseCorpus(t, "14-rejected")
		for id, st := range map[string]Status{"toolu_rm": StatusRejected, "toolu_rm2": StatusRejected, "toolu_rm3": StatusDenied} {
			if r := d.ToolResult(id); r.Status != st {
				t.Errorf("%s: %q", id, r.Status)
			}
		}
		if d.ToolResult("toolu_rm").Content != "Not my home directory, please." {
			t.Error("reason lost")
		}
	})
	t.Run("15 MCP name, error result, custom role", func(t *testing.T) {
		d := parseCorpus(t, "15-mcp-and-error")
		if u := d.ToolUse("toolu_mcp1"); u.Name != "slack:channels_list" {
			t.Errorf("name %q", u.Name)
		}
		if r := d.ToolResult("urn:flemma:tool:read:6a1f3c2b9e04"); r.Status != StatusError || r.IsPlaceholder() || r.Dialect != DialectNone {
			t.Errorf("%+v", r)
		}
		if !slices.Contains(roles(d), "Notes") || len(d.Diagnostics()) != 0 {
			t.Errorf("roles %v diags %v", roles(d), d.Diagnostics())
		}
	})
}
