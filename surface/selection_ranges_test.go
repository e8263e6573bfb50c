package surface

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/lspcheck"
)

// selectionChain lists the texts of a selection range and its parents.
func selectionChain(doc *chatdoc.Document, enc chatdoc.Encoding, sr protocol.SelectionRange) []string {
	var out []string
	for r := &sr; r != nil; r = r.Parent {
		span := doc.Span(chatdoc.Range{
			Start: chatdoc.Position{Line: int(r.Range.Start.Line), Character: int(r.Range.Start.Character)},
			End:   chatdoc.Position{Line: int(r.Range.End.Line), Character: int(r.Range.End.Character)},
		}, enc)
		text := doc.Text()[span.Start:span.End]
		if len(text) > 24 {
			text = text[:12] + "…" + text[len(text)-12:]
		}
		out = append(out, strings.ReplaceAll(text, "\n", "⏎"))
	}
	return out
}

func TestSelectionRanges(t *testing.T) {
	doc := corpus(t, "01-pending-bash.chat")
	for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8} {
		// Line 12 is the JSON input; character 5 is inside "command".
		got := SelectionRanges(doc, enc, []chatdoc.Position{{Line: 12, Character: 5}, {Line: 20, Character: 1}, {Line: 99, Character: 0}})
		if len(got) != 3 {
			t.Fatalf("got %d ranges", len(got))
		}
		want := []string{
			"command",                     // word
			`{"command":"…meout":null}`,   // line (= fence content, deduplicated)
			"```json⏎{\"co…t\":null}⏎```", // fence
			"**Tool Use:*…t\":null}⏎```",  // tool use
			"@Assistant:⏎…t\":null}⏎```",  // message
			"@System:⏎You…ending⏎```⏎⏎",   // document
		}
		if diff := cmp.Diff(want, selectionChain(doc, enc, got[0])); diff != "" {
			t.Errorf("enc %d (-want +got):\n%s", enc, diff)
		}
		if chain := selectionChain(doc, enc, got[2]); len(chain) == 0 {
			t.Errorf("past-end position gave no range")
		}
	}
}

func TestSelectionRangesNested(t *testing.T) {
	doc := corpus(t, "05-nested-fences.chat")
	for i, p := range []chatdoc.Position{{Line: 0, Character: 0}, {Line: 5, Character: 3}, {Line: 27, Character: 2}, {Line: 34, Character: 10}} {
		got := SelectionRanges(doc, chatdoc.UTF16, []chatdoc.Position{p})
		// Every parent must contain its child.
		for r := &got[0]; r.Parent != nil; r = r.Parent {
			if !lspcheck.Contains(r.Parent.Range, r.Range) || r.Parent.Range == r.Range {
				t.Errorf("position %d: parent %+v does not strictly contain %+v", i, r.Parent.Range, r.Range)
			}
		}
	}
}
