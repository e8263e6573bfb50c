package surface

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chatls/chatls/chatdoc"
)

func TestDocumentLinks(t *testing.T) {
	doc := chatdoc.Parse(lines(
		"@You:",
		"Compare @./a b.md (and @../up/x#1.go), then @./ü/ñ.txt.",
		"```",
		"@./in-fence.md",
		"```",
	))
	type link struct{ Text, Target string }
	var got []link
	for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8} {
		got = got[:0]
		for _, l := range DocumentLinks(doc, enc, "/home/me/chats") {
			span := doc.Span(chatdoc.Range{
				Start: chatdoc.Position{Line: int(l.Range.Start.Line), Character: int(l.Range.Start.Character)},
				End:   chatdoc.Position{Line: int(l.Range.End.Line), Character: int(l.Range.End.Character)},
			}, enc)
			got = append(got, link{doc.Text()[span.Start:span.End], string(l.Target)})
		}
		want := []link{
			{"./a", "file:///home/me/chats/a"},
			{"../up/x#1.go", "file:///home/me/up/x%231.go"},
			{"./ü/ñ.txt", "file:///home/me/chats/%C3%BC/%C3%B1.txt"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("enc %d links (-want +got):\n%s", enc, diff)
		}
	}
	if links := DocumentLinks(doc, chatdoc.UTF16, ""); len(links) != 0 || links == nil {
		t.Errorf("no directory: %v", links)
	}
}
