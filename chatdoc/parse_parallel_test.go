package chatdoc

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

// parseWithSplit parses text with the two-halves scan forced on (min > 0)
// or off (min < 0).
func parseWithSplit(text string, split bool) *Document {
	saved := parallelParseMin
	defer func() { parallelParseMin = saved }()
	parallelParseMin = 1 << 62
	if split {
		parallelParseMin = 0
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
