package chatdoc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

// ParseOnce reads every document as Parse does (and an edit of it too); it
// only takes its nodes from fewer, larger allocations.
func TestParseOnceEqualsParse(t *testing.T) {
	texts := []string{chatgen.Generate(300<<10, 3), chatgen.GenerateDense(2<<20, 4)}
	corpus, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.chat"))
	for _, name := range corpus {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(data))
	}
	if len(texts) < 5 {
		t.Fatalf("only %d documents to compare: the corpus is missing", len(texts))
	}
	for _, text := range texts {
		assertSameDoc(t, ParseOnce(text), Parse(text))
		at := len(text) / 3
		edited := ParseOnce(text).Replace(Span{at, at}, "\n@You:\nmore\n")
		assertSameDoc(t, edited, Parse(edited.Text()))
	}
}

func TestParseOnceAllocatesItsNodesInBatches(t *testing.T) {
	text := chatgen.GenerateDense(1<<20, 5)
	each := testing.AllocsPerRun(3, func() { Parse(text) })
	once := testing.AllocsPerRun(3, func() { ParseOnce(text) })
	if once > each*2/3 {
		t.Fatalf("ParseOnce: %.0f allocations, Parse %.0f: the nodes were not batched", once, each)
	}
	t.Logf("allocations: Parse %.0f, ParseOnce %.0f", each, once)
}
