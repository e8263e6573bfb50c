package surface

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chatls/chatls/chatdoc"
)

func TestFoldingRangesThinking(t *testing.T) {
	doc := corpus(t, "10-thinking.chat")
	var got []string
	for _, f := range FoldingRanges(doc, chatdoc.UTF16) {
		got = append(got, fmt.Sprintf("%d-%d %s", f.StartLine, f.EndLine, f.Kind))
	}
	want := []string{
		"0-1 region",    // You
		"3-16 region",   // Assistant, up to its last non-blank line
		"4-6 comment",   // signed thinking
		"8-12 region",   // find tool use
		"14-16 comment", // redacted thinking
		"18-24 region",  // You
		"20-24 region",  // result
		"26-29 region",  // Assistant (the self-closing thinking gets no fold)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("folds (-want +got):\n%s", diff)
	}
}

func TestFoldingRangesFrontmatterAndPlainFence(t *testing.T) {
	doc := chatdoc.Parse(lines("```json", `{"a": 1}`, "```", "@You:", "see", "```go", "x := 1", "```", "done"))
	var got []string
	for _, f := range FoldingRanges(doc, chatdoc.UTF8) {
		got = append(got, fmt.Sprintf("%d-%d %s", f.StartLine, f.EndLine, f.Kind))
	}
	want := []string{"0-2 imports", "3-8 region", "5-7 region"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("folds (-want +got):\n%s", diff)
	}
}
