package e2e

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

// TestLargeDocumentOpensWhole: a 2 MB document goes through the server's
// path for large frames (its params are set aside, its text decoded by the
// fast reader); the tool use at its very end, with quotes, backslashes and
// non-ASCII text in its input, must arrive exactly, and so must a change
// typed after it and a whole-text change (as Vim's ALE sends).
func TestLargeDocumentOpensWhole(t *testing.T) {
	s := start(t, sessionOptions{})
	last := "@Assistant:\n**Tool Use:** `bash` (`toolu_last`)\n\n```json\n" +
		`{"command": "printf '%s\\n' \"naïve ✓ \\\\ end\""}` + "\n```\n"
	text := chatgen.Generate(2<<20, 3) + "\n" + last
	uri := s.open("large.chat", text)
	hover := s.hover(uri, "toolu_last")
	if !strings.Contains(hover, `naïve ✓ \\\\ end`) {
		t.Fatalf("the hover over the last tool use does not show its input:\n%s", hover)
	}
	if err := s.c.Replace(s.ctx, uri, `end\""}`, `fin\""}`); err != nil {
		t.Fatal(err)
	}
	if hover := s.hover(uri, "toolu_last"); !strings.Contains(hover, `naïve ✓ \\\\ fin`) {
		t.Fatalf("after the change the hover shows:\n%s", hover)
	}
	whole := strings.Replace(text, `end\""}`, `done 😀\""}`, 1)
	if err := s.c.ReplaceAll(s.ctx, uri, whole); err != nil {
		t.Fatal(err)
	}
	if hover := s.hover(uri, "toolu_last"); !strings.Contains(hover, `naïve ✓ \\\\ done 😀`) {
		t.Fatalf("after the whole-text change the hover shows:\n%s", hover)
	}
}
