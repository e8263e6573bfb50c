package frontmatter

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/testfs"
)

var update = flag.Bool("update", false, "rewrite golden files")

// corpusDir holds chatdoc's corpus: the documents are the parser's, what
// their frontmatter means is checked here.
const corpusDir = "../chatdoc/testdata/corpus"

func evalCorpus(t *testing.T, name string) *Evaluation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, name+".chat"))
	if err != nil {
		t.Fatal(err)
	}
	return Evaluate(chatdoc.Parse(string(data)).Frontmatter)
}

func TestCorpusFrontmatter(t *testing.T) {
	t.Run("06 Lua frontmatter ops in order", func(t *testing.T) {
		fm := evalCorpus(t, "06-frontmatter-lua")
		want := []OptionOp{
			{Path: "tools.auto_approve", Op: "set", Values: []any{"$readonly"}, Line: 1},
			{Path: "tools.auto_approve", Op: "remove", Values: []any{"grep"}, Line: 2},
			{Path: "tools.auto_approve", Op: "append", Values: []any{"calculator"}, Line: 3},
		}
		assertOps(t, fm.Options, want)
		if fm.Vars["recipient"] != "the platform team" {
			t.Fatalf("vars %v", fm.Vars)
		}
	})
	t.Run("07 JSON frontmatter operators", func(t *testing.T) {
		fm := evalCorpus(t, "07-frontmatter-json")
		want := []OptionOp{
			{Path: "tools.auto_approve", Op: "append", Values: []any{"bash"}, Line: 4},
			{Path: "tools.auto_approve", Op: "remove", Values: []any{"write"}, Line: 4},
		}
		assertOps(t, fm.Options, want)
		if fm.Vars["project"] != "demo" {
			t.Fatalf("vars %v", fm.Vars)
		}
	})
}

// TestCorpusGolden renders the evaluation of every corpus document with a
// frontmatter to testdata/NAME.golden (-update rewrites them).
func TestCorpusGolden(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "*.chat"))
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc := chatdoc.Parse(string(data))
		if doc.Frontmatter == nil {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(path), ".chat") + ".golden"
		golden(t, name, dump(doc))
	}
}

// dump renders a frontmatter's evaluation with LSP ranges (utf-16).
func dump(d *chatdoc.Document) string {
	var b strings.Builder
	rng := func(s chatdoc.Span) string {
		r := d.Range(s, chatdoc.UTF16)
		return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	ev := Evaluate(d.Frontmatter)
	fmt.Fprintf(&b, "frontmatter %s %s\n", d.Frontmatter.Language, rng(d.Frontmatter.Span))
	for _, op := range ev.Options {
		v, _ := json.Marshal(op.Values)
		fmt.Fprintf(&b, "  option line %d: %s %s %s\n", op.Line, op.Path, op.Op, v)
	}
	keys := make([]string, 0, len(ev.Vars))
	for k := range ev.Vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := json.Marshal(ev.Vars[k])
		fmt.Fprintf(&b, "  var %s = %s\n", k, v)
	}
	for _, dg := range ev.Diagnostics {
		fmt.Fprintf(&b, "diagnostic %s sev=%d %s id=%q: %s\n", rng(dg.Span), dg.Severity, dg.Code, dg.ToolID, dg.Message)
	}
	return b.String()
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) { testfs.Golden(t, name, got, *update) }

func assertOps(t *testing.T, got, want []OptionOp) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("ops %+v, want %+v", got, want)
	}
	for i := range got {
		if got[i].Path != want[i].Path || got[i].Op != want[i].Op || got[i].Line != want[i].Line || !slices.Equal(got[i].Values, want[i].Values) {
			t.Fatalf("op %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
