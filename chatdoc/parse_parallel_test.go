package chatdoc

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

// parseWithSplit parses text with the two-halves scan and the ID maps on
// two cores forced on or off.
func parseWithSplit(text string, split bool) *Document {
	savedParse, savedIDs := parallelParseMin, parallelIDsMin
	defer func() { parallelParseMin, parallelIDsMin = savedParse, savedIDs }()
	parallelParseMin, parallelIDsMin = 1<<62, 1<<62
	if split {
		parallelParseMin, parallelIDsMin = 0, 0
	}
	return Parse(text)
}

// Scanning two halves at once gives exactly the sequential parse: when the
// middle marker starts a message and when it is inside a fence, a thinking
// block or an unclosed tool-use fence.
func TestParallelParseEqualsSequential(t *testing.T) {
	texts := corpusTexts(t)
	texts["generated"] = chatgen.Generate(300_000, 2)
	body := strings.Repeat("@You:\nhi\n@Assistant:\nok\n", 50)
	texts["marker in fence"] = body + "@You:\n```\n" + body + "```\n" + body
	texts["marker in thinking"] = body + "@Assistant:\n<thinking>\n" + body + "</thinking>\n" + body
	texts["marker in result fence"] = body + "@You:\n**Tool Result:** `x`\n````\n" + body + "````\n" + body
	texts["marker ends tool-use fence"] = body + "@Assistant:\n**Tool Use:** `a` (`b`)\n```json\n{\n" + body
	texts["frontmatter"] = "```lua\nflemma.opt.x = 1\n```\n" + body
	use := func(id string) string { return "@Assistant:\n**Tool Use:** `bash` (`" + id + "`)\n```json\n{}\n```\n" }
	result := func(id string) string { return "@You:\n**Tool Result:** `" + id + "`\n```\nok\n```\n" }
	texts["duplicate and orphan IDs"] = use("a") + use("a") + result("a") + result("a") + result("x") + result("x") +
		body + use("b") + result("y") + use("b") + result("b") + result("b") + result("a")
	r := rand.New(rand.NewSource(7))
	for name, text := range texts {
		for i := 0; i < 30; i++ {
			assertSameDoc(t, parseWithSplit(text, true), parseWithSplit(text, false))
			span, ins := randomEdit(r, text)
			text = text[:span.Start] + ins + text[span.End:]
			if t.Failed() {
				t.Fatalf("%s, step %d", name, i)
			}
		}
	}
}

// A second result whose ID no tool use has gets both findings, the orphan
// first, however the ID maps are built.
func TestIDFindingsOrderOnOneResult(t *testing.T) {
	text := "@You:\n**Tool Result:** `x`\n```\nok\n```\n\n@You:\n**Tool Result:** `x`\n```\nok\n```\n"
	for _, split := range []bool{false, true} {
		var codes []string
		for _, d := range parseWithSplit(text, split).Diagnostics() {
			codes = append(codes, d.Code)
		}
		want := []string{CodeOrphanResult, CodeOrphanResult, CodeDuplicateToolResult}
		if !slices.Equal(codes, want) {
			t.Fatalf("split %v: %v, want %v", split, codes, want)
		}
	}
}
