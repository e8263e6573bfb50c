package chatdoc

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

func corpusTexts(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.chat")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// editFragments are the pieces random edits insert: the grammar's tokens,
// so edits create and destroy markers, fences and headers.
var editFragments = []string{
	"@You:\n", "@Assistant:\n", "@You: hi\n", "```\n", "````\n", "```json\n", "```flemma:tool status=pending\n",
	"**Tool Use:** `bash` (`t1`)\n", "**Tool Result:** `t1`\n", "**Tool Result:** `t1` (approved)\n",
	"{\"a\":1}\n", "<thinking>\n", "</thinking>\n", "<!-- flemma:aborted: stop -->\n", "@./file.txt ",
	"\n", "\r\n", "x", "é", "😀", "`", "@", "\n\n", "```lua\n", "```\n@You:\n",
}

// randomEdit picks a span and replacement text in text.
func randomEdit(r *rand.Rand, text string) (Span, string) {
	start := r.Intn(len(text) + 1)
	end := start
	if r.Intn(2) == 0 {
		end = min(len(text), start+r.Intn(40))
	}
	if r.Intn(4) == 0 { // snap to a line start, where structure lives
		start = strings.LastIndexByte(text[:start], '\n') + 1
		end = max(start, end)
	}
	var ins string
	switch r.Intn(3) {
	case 0:
		ins = ""
	case 1:
		ins = editFragments[r.Intn(len(editFragments))]
	default:
		a := r.Intn(len(text) + 1)
		ins = text[a:min(len(text), a+r.Intn(60))]
	}
	return Span{start, end}, ins
}

func TestIncrementalMatchesFullParse(t *testing.T) {
	steps := 400
	if testing.Short() {
		steps = 60
	}
	for name, text := range corpusTexts(t) {
		t.Run(name, func(t *testing.T) { randomEdits(t, name, text, steps) })
		t.Run(name+"/tiny-pieces", func(t *testing.T) { withTinyPieces(func() { randomEdits(t, name, text, steps) }) })
	}
}

// randomEdits applies random edits one after another and compares each
// snapshot with a full parse.
func randomEdits(t *testing.T, name, text string, steps int) {
	t.Helper()
	r := rand.New(rand.NewSource(int64(len(name))))
	doc := Parse(text)
	for i := range steps {
		span, ins := randomEdit(r, doc.Text())
		next := doc.Replace(span, ins)
		want := Parse(next.Text())
		if diff := docDiff(next, want); diff != "" {
			t.Fatalf("step %d: replace %v with %q\n%s\nin:\n%q", i, span, ins, diff, doc.Text())
		}
		doc = next
		if doc.Len() > 4*len(text)/3+20000 {
			doc = Parse(text)
		}
	}
}

// A generated document of many pieces at the default piece size.
func TestIncrementalMatchesFullParseLarge(t *testing.T) {
	steps := 150
	if testing.Short() {
		steps = 20
	}
	randomEdits(t, "large", chatgen.Generate(200_000, 3), steps)
}
