package surface

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/lspcheck"
)

// outline renders symbols as indented "name | detail | L:C-L:C" lines.
func outline(syms []protocol.DocumentSymbol, indent string) []string {
	var out []string
	for _, s := range syms {
		r := s.Range
		out = append(out, fmt.Sprintf("%s%s | %s | %d:%d-%d:%d", indent, s.Name, s.Detail, r.Start.Line, r.Start.Character, r.End.Line, r.End.Character))
		out = append(out, outline(s.Children, indent+"  ")...)
	}
	return out
}

func TestDocumentSymbolsSuffixDialect(t *testing.T) {
	doc := corpus(t, "03-suffix-dialect.chat")
	live := func(id string) string {
		if id == "toolu_sh2" {
			return "running"
		}
		return ""
	}
	got := outline(DocumentSymbols(doc, chatdoc.UTF16, live), "")
	want := []string{
		"You: What's in the repo root? |  | 0:0-1:24",
		"Assistant: calls ls, bash |  | 3:0-14:3",
		"  ls | approved · toolu_ls1 | 4:0-8:3",
		"  bash | running · toolu_sh2 | 10:0-14:3",
		"You: results for toolu_ls1, toolu_sh2 |  | 16:0-26:3",
		"  result toolu_ls1 | approved | 18:0-21:3",
		"  result toolu_sh2 | pending | 23:0-26:3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outline (-want +got):\n%s", diff)
	}
}

func TestDocumentSymbolsStatuses(t *testing.T) {
	doc := corpus(t, "08-malformed.chat")
	got := outline(DocumentSymbols(doc, chatdoc.UTF8, nil), "")
	want := []string{
		"You: this is the pre-0.6 inline form and should be flagged |  | 0:0-0:59",
		"Assistant: just prose where a fence should be |  | 2:0-35:34",
		"  bash | invalid input · toolu_bad1 | 3:0-7:3",
		"  reed | unanswered · toolu_unknown | 9:0-13:3",
		"  read | unanswered · toolu_dup | 15:0-19:3",
		"  read | unanswered · toolu_dup | 21:0-25:3",
		"  edit | unanswered · toolu_schema | 27:0-31:3",
		"  write | invalid input · toolu_nofence | 33:0-33:39",
		"You: results for toolu_orphan, toolu_unclosed |  | 37:0-48:26",
		"  result toolu_orphan | done | 39:0-43:3",
		"  result toolu_unclosed | done | 45:0-48:26",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outline (-want +got):\n%s", diff)
	}
}

func TestDocumentSymbolsFrontmatterAndLongLine(t *testing.T) {
	long := "x" + strings.Repeat("é", 100)
	doc := chatdoc.Parse("```lua\nx = 1\n```\n@System:\n\n  " + long + "\n")
	syms := DocumentSymbols(doc, chatdoc.UTF16, nil)
	if len(syms) != 2 || syms[0].Name != "frontmatter" || syms[0].Detail != "lua" {
		t.Fatalf("got %v", outline(syms, ""))
	}
	if got := []rune(syms[1].Name); len(got) != len("System: ")+symbolNameRunes || got[len(got)-1] != '…' {
		t.Errorf("long first line not cut: %q", syms[1].Name)
	}
}

// A role marker with trailing white space (a common state while typing)
// gave a symbol whose selection lay outside its range, and VS Code then
// rejected the whole outline.
func TestSymbolRangeHoldsItsSelection(t *testing.T) {
	for _, text := range []string{"@You: ", "@You:\nhi\n\n@Assistant:  ", "@You: \t", "```lua\nx=1\n``` \n@You:  \n"} {
		doc := chatdoc.Parse(text)
		if err := lspcheck.Symbols(doc, chatdoc.UTF16, DocumentSymbols(doc, chatdoc.UTF16, nil)); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// A call's status in the outline is its first result's: a second result
// for the same ID never counts (it gets a diagnostic instead).
func TestDocumentSymbolsStatusFromFirstResult(t *testing.T) {
	doc := chatdoc.Parse("@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\n" +
		"@You:\n**Tool Result:** `t1` (status=denied)\n\n```\n```\n\n**Tool Result:** `t1`\n\n```\nok\n```\n")
	syms := DocumentSymbols(doc, chatdoc.UTF16, nil)
	if len(syms) == 0 || len(syms[0].Children) != 1 || syms[0].Children[0].Detail != "denied · t1" {
		t.Fatalf("outline:\n%s", strings.Join(outline(syms, ""), "\n"))
	}
}
