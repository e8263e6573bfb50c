package surface

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/lspcheck"
)

// garbageDocuments returns hostile texts: corpus documents cut, spliced and
// sprinkled with fence, marker and header fragments, invalid UTF-8 and CRs.
func garbageDocuments(t testing.TB, n int) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "*.chat"))
	var seeds []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, string(b))
	}
	fragments := []string{"```", "````json\n", "\n```\n", "@You:", "@You: x", "\n@Assistant:\n", "**Tool Use:** `", "**Tool Use:** `a:b` (`x`)\n",
		"**Tool Result:** `x` (", "status=", "flemma:tool status=pending", "<thinking>", "</thinking>", "<thinking x/>", "@./", "\r", "\r\n",
		"\xff", "\xe2\x82", "😀", "{", "}", "\"", "\\", "\x00", "<!-- flemma:aborted: x -->", "\n"}
	rng := rand.New(rand.NewSource(42))
	docs := []string{"", "\n", "\r\n", "@", "```", "```lua\n", "@You:", "\xff\xfe", strings.Repeat("`", 1000), strings.Repeat("@You:\n", 500)}
	for len(docs) < n {
		s := seeds[rng.Intn(len(seeds))]
		for k := rng.Intn(6); k >= 0; k-- {
			i, j := rng.Intn(len(s)+1), rng.Intn(len(s)+1)
			if i > j {
				i, j = j, i
			}
			switch rng.Intn(4) {
			case 0:
				s = s[:i] + s[j:]
			case 1:
				s = s[:i] + fragments[rng.Intn(len(fragments))] + s[i:]
			case 2:
				other := seeds[rng.Intn(len(seeds))]
				s = s[:i] + other[min(i, len(other)):]
			default:
				s = s[:i] + string(rune(rng.Intn(0x20000))) + s[j:]
			}
		}
		docs = append(docs, s)
	}
	return docs
}

func TestNoPanicOnGarbage(t *testing.T) {
	reg := newFakeRegistry()
	n := 400
	if testing.Short() {
		n = 50
	}
	for i, text := range garbageDocuments(t, n) {
		doc := chatdoc.Parse(text)
		for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8, chatdoc.UTF32} {
			checkEverything(t, i, doc, enc, reg)
		}
	}
}

// FuzzSurface runs every function on fuzzed documents:
// go test ./surface -run '^$' -fuzz FuzzSurface -fuzztime 60s
func FuzzSurface(f *testing.F) {
	for _, text := range garbageDocuments(f, 30) {
		f.Add(text)
	}
	reg := newFakeRegistry()
	f.Fuzz(func(t *testing.T, text string) {
		doc := chatdoc.Parse(text)
		checkEverything(t, 0, doc, chatdoc.UTF16, reg)
	})
}

func checkEverything(t *testing.T, i int, doc *chatdoc.Document, enc chatdoc.Encoding, reg ToolInfo) {
	t.Helper()
	diags := append(append([]chatdoc.Diagnostic{}, doc.Diagnostics()...), toolDiagnostics(doc, reg)...)
	diags = append(diags, chatdoc.Diagnostic{Code: CodeUnansweredToolUse, ToolID: "x"})
	for _, u := range doc.ToolUses() {
		diags = append(diags, chatdoc.Diagnostic{Code: CodeUnansweredToolUse, ToolID: u.ID, Span: u.HeaderSpan})
	}
	for _, d := range diags {
		for _, fix := range QuickFixes(doc, d, reg) {
			applyEdits(t, doc.Text(), fix.Edits)
		}
	}

	data := SemanticTokens(doc, enc)
	if err := lspcheck.Tokens(doc, enc, data); err != nil {
		t.Fatalf("doc %d: %v", i, err)
	}
	SemanticTokensDelta(data, SemanticTokens(chatdoc.Parse(doc.Text()+"\n@You:\n"), enc))
	if err := lspcheck.Symbols(doc, enc, DocumentSymbols(doc, enc, nil)); err != nil {
		t.Fatalf("doc %d: %v", i, err)
	}
	if err := lspcheck.Folds(doc, FoldingRanges(doc, enc)); err != nil {
		t.Fatalf("doc %d: %v", i, err)
	}
	for _, d := range diags {
		if err := lspcheck.Range(doc, enc, LSPRange(doc, d.Span, enc)); err != nil && d.Span != (chatdoc.Span{}) {
			t.Fatalf("doc %d: diagnostic %q: %v", i, d.Message, err)
		}
	}
	DocumentLinks(doc, enc, "/tmp")

	lines := doc.Lines.LineCount()
	var positions []chatdoc.Position
	for line := 0; line <= lines; line += max(1, lines/40) {
		for _, ch := range []int{0, 1, 3, 7, 20, 1000} {
			positions = append(positions, chatdoc.Position{Line: line, Character: ch})
		}
	}
	for _, pos := range positions {
		for _, item := range Completion(doc, enc, pos, []string{"bash", "read"}) {
			if item.TextEdit == nil || item.TextEdit.Range.Start.Line != item.TextEdit.Range.End.Line {
				t.Fatalf("doc %d: completion edit %+v", i, item.TextEdit)
			}
		}
	}
	if err := lspcheck.SelectionRanges(doc, enc, SelectionRanges(doc, enc, positions)); err != nil {
		t.Fatalf("doc %d: %v", i, err)
	}
}

// Lone carriage returns end lines for LSP clients (chatdoc.LineIndex): every
// answer stays inside the lines a client counts.
func TestLoneCarriageReturnsKeepAnswersValid(t *testing.T) {
	reg := newFakeRegistry()
	for i, text := range []string{
		"@You:\nsome\rtext\r\n@Assistant:\r**Tool Use:** `read` (`t1`)\n\n```json\r\n{\"path\":\"a\r\"}\n```\n\n@You:\n\n**Tool Result:** `t1`\n\n```flemma:tool status=pending\r```\n",
		"```lua\rflemma.opt.x = 1\n```\n@You:\r\rhi\r",
		"\r\r\r@You:\n<thinking>\rx\r</thinking>\n",
	} {
		doc := chatdoc.Parse(text)
		for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8} {
			checkEverything(t, i, doc, enc, reg)
		}
	}
}
