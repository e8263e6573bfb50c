package surface

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chatls/chatls/chatdoc"
)

// completeAt parses text with one "|" marking the cursor and returns the
// labels offered and the text after accepting the first item.
func completeAt(t *testing.T, marked string, enc chatdoc.Encoding) (labels []string, accepted string) {
	t.Helper()
	cursor := strings.Index(marked, "|")
	text := marked[:cursor] + marked[cursor+1:]
	doc := chatdoc.Parse(text)
	pos := doc.Lines.Position(cursor, enc)
	items := Completion(doc, enc, pos, []string{"bash", "read", "slack:channels_list"})
	for _, it := range items {
		labels = append(labels, it.Label)
	}
	if len(items) > 0 && items[0].TextEdit != nil {
		r := items[0].TextEdit.Range
		span := doc.Span(chatdoc.Range{
			Start: chatdoc.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
			End:   chatdoc.Position{Line: int(r.End.Line), Character: int(r.End.Character)},
		}, enc)
		if r.Start.Line != r.End.Line || span.Start > cursor || span.End < cursor {
			t.Errorf("edit range %+v must be one line and contain the cursor", r)
		}
		accepted = text[:span.Start] + items[0].TextEdit.NewText + text[span.End:]
	}
	return labels, accepted
}

func TestCompletion(t *testing.T) {
	statuses := []string{"approved", "rejected", "pending", "denied", "aborted"}
	roles := []string{"@You:", "@Assistant:", "@System:"}
	tools := []string{"bash", "read", "slack:channels_list"}
	const result = "@You:\n\n**Tool Result:** `t1`\n\n"
	tests := []struct {
		name     string
		marked   string
		labels   []string
		accepted string // "" = not checked
	}{
		{"fence status", result + "```flemma:tool status=pe|nding\n```\n", statuses, result + "```flemma:tool status=approved\n```\n"},
		{"fence status empty", result + "```flemma:tool status=|\n```\n", statuses, ""},
		{"fence status with extra", result + "```flemma:tool status=|pending sandbox=false\n```\n", statuses, result + "```flemma:tool status=approved sandbox=false\n```\n"},
		{"fence other key", result + "```flemma:tool status=pending sandbox=|\n```\n", nil, ""},
		{"suffix", "@You:\n\n**Tool Result:** `t1` (|pending)\n\n```\n```\n", statuses, "@You:\n\n**Tool Result:** `t1` (approved)\n\n```\n```\n"},
		{"suffix key", "@You:\n\n**Tool Result:** `t1` (status=re|)\n", statuses, "@You:\n\n**Tool Result:** `t1` (status=approved)\n"},
		{"tool name", "@Assistant:\n**Tool Use:** `re|ad` (`x`)\n", tools, "@Assistant:\n**Tool Use:** `bash` (`x`)\n"},
		{"tool name open", "@Assistant:\n**Tool Use:** `|", tools, "@Assistant:\n**Tool Use:** `bash"},
		{"lua frontmatter", "```lua\nflemma.opt.tools.auto_approve = { \"$read|\" }\n```\n@You:\n", append(append([]string{}, tools...), toolPresets...), "```lua\nflemma.opt.tools.auto_approve = { \"bash\" }\n```\n@You:\n"},
		{"json frontmatter value", "```json\n{\"flemma\": {\"tools\": {\"auto_approve\": [\"|\"]}}}\n```\n@You:\n", append(append([]string{}, tools...), toolPresets...), ""},
		{"json frontmatter key", "```json\n{\"fle|\": 1}\n```\n@You:\n", nil, ""},
		{"frontmatter outside string", "```lua\nx = |\n```\n@You:\n", nil, ""},
		{"lua template variable", "```lua\nrecipient = \"te|am\"\n```\n@You:\n", nil, ""},
		{"lua method", "```lua\nflemma.opt.tools.auto_approve:remove(\"g|\")\n```\n@You:\n", append(append([]string{}, tools...), toolPresets...), ""},
		{"json operator", "```json\n{\"flemma\": {\"tools\": {\"auto_approve\": {\"$append\": \"b|\"}}}}\n```\n@You:\n", append(append([]string{}, tools...), toolPresets...), ""},
		{"json plain value", "```json\n{\"project\": \"de|mo\"}\n```\n@You:\n", nil, ""},
		{"role marker", "@You:\nhi\n@A|\n", roles, "@You:\nhi\n@You:\n"},
		{"role marker bare at", "@You:\nhi\n@|", roles, "@You:\nhi\n@You:"},
		{"role marker replaces colon", "@You:\nhi\n@Ass|:\n", roles, "@You:\nhi\n@You:\n"},
		{"role marker inside fence", "@You:\n```\n@|\n```\n", nil, ""},
		{"role marker mid line", "@You:\nhi @|\n", nil, ""},
		{"plain text", "@You:\nhello |world\n", nil, ""},
		{"empty doc", "|", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8} {
				labels, accepted := completeAt(t, tt.marked, enc)
				if diff := cmp.Diff(tt.labels, labels); diff != "" {
					t.Errorf("enc %d labels (-want +got):\n%s", enc, diff)
				}
				if tt.accepted != "" && accepted != tt.accepted {
					t.Errorf("enc %d accepted:\n%q\nwant\n%q", enc, accepted, tt.accepted)
				}
			}
		})
	}
}

func TestCompletionUnicodeColumns(t *testing.T) {
	// A multi-byte character before the cursor: the edit range must still
	// map back to the status word in both encodings.
	marked := "@You:\n\n**Tool Result:** `tö😀` (|pending)\n\n```\n```\n"
	for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8, chatdoc.UTF32} {
		_, accepted := completeAt(t, marked, enc)
		if want := "@You:\n\n**Tool Result:** `tö😀` (approved)\n\n```\n```\n"; accepted != want {
			t.Errorf("enc %d: %q", enc, accepted)
		}
	}
}
