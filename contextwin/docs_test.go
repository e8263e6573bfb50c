package contextwin

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// trimDocExample is the trimming example of docs/context.md: an old test
// run of about 2.3 KB, and two turns after it that trimming leaves alone.
var trimDocExample = doc(
	msg("You", "Run the tests."),
	msg("Assistant", bash("t1", "go test -v ./parser")),
	msg("You", result("t1", testRun(60))),
	msg("Assistant", "All 60 cases pass; the slowest is case_060 at 0.60s."),
	msg("You", "Why is case_060 slow?"),
	msg("Assistant", "It parses a 4 MB number literal digit by digit."),
	msg("You", "Make it faster."),
)

// testRun is the verbose output of a test with n cases.
func testRun(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "--- PASS: TestParse/case_%03d (0.%02ds)\n", i, i)
	}
	return b.String() + "PASS\nok  \texample.com/parser\t0.820s"
}

func TestTrimDocExample(t *testing.T) {
	d := mustParse(t, trimDocExample)
	tr, err := Trim(d, keepUpTo(t, d, 3), "/work/notes/build.archive-1.chat")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Trimmed != 1 {
		t.Fatalf("Trimmed = %d, want 1", tr.Trimmed)
	}
	golden(t, "trim/build.chat", trimDocExample)
	golden(t, "trim/build.trimmed.chat", tr.apply(trimDocExample))
	golden(t, "trim/build.archive-1.chat", string(tr.Archive))
}

func (t Trimming) apply(text string) string {
	for i := len(t.Edits) - 1; i >= 0; i-- {
		e := t.Edits[i]
		text = text[:e.Span.Start] + e.NewText + text[e.Span.End:]
	}
	return text
}

// The examples in docs/context.md are the golden files: each block after
// a `<!-- golden: NAME -->` line is testdata/NAME, whole (-update rewrites
// the blocks too), so that the page shows what chatls writes.
func TestDocsShowTheGoldenFiles(t *testing.T) {
	const page = "../docs/context.md"
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)(<!-- golden: (\\S+) -->\n`````\n)(.*?)(`````\n)")
	n := 0
	out := block.ReplaceAllStringFunc(string(data), func(m string) string {
		parts := block.FindStringSubmatch(m)
		n++
		want, err := os.ReadFile(filepath.Join("testdata", parts[2]))
		if err != nil {
			t.Errorf("%s: %v", page, err)
			return m
		}
		if parts[3] != string(want) && !*update {
			t.Errorf("%s: the block of %s differs from the golden file (go test ./contextwin -update rewrites it):\n%s",
				page, parts[2], udiff.Unified("golden", "docs", string(want), parts[3]))
		}
		return parts[1] + string(want) + parts[4]
	})
	if n < 6 {
		t.Errorf("%s shows %d golden files, want the compaction's three and the trim's three", page, n)
	}
	if *update && out != string(data) {
		if err := os.WriteFile(page, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
