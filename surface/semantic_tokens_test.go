package surface

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/chatls/chatls/chatdoc"
)

func TestSemanticTokensPendingBash(t *testing.T) {
	doc := corpus(t, "01-pending-bash.chat")
	got := decodeTokens(doc, chatdoc.UTF16, SemanticTokens(doc, chatdoc.UTF16))
	want := []string{
		`0:0 8 keyword "@System:"`,
		`3:0 5 keyword "@You:"`,
		`6:0 11 keyword "@Assistant:"`,
		`9:0 13 macro "**Tool Use:**"`,
		`9:15 4 function "bash"`,
		`9:23 9 variable+declaration "toolu_01A"`,
		`11:0 7 decorator "` + "```json" + `"`,
		`13:0 3 decorator "` + "```" + `"`,
		`15:0 5 keyword "@You:"`,
		`17:0 16 macro "**Tool Result:**"`,
		`17:18 9 variable "toolu_01A"`,
		`19:0 22 decorator "` + "```flemma:tool status=" + `"`,
		`19:22 7 enumMember "pending"`,
		`20:0 3 decorator "` + "```" + `"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
}

func TestSemanticTokensEncodings(t *testing.T) {
	doc := corpus(t, "11-crlf-unicode.chat")
	for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8, chatdoc.UTF32} {
		got := decodeTokens(doc, enc, SemanticTokens(doc, enc))
		// Decoding through the same encoding must give back exactly the token texts.
		want := []string{"@You:", "@Assistant:", "**Tool Use:**", "bash", "toolu_crlf", "```json", "```", "@You:", "**Tool Result:**", "toolu_crlf", "```flemma:tool status=", "pending", "```"}
		var texts []string
		for _, line := range got {
			texts = append(texts, tokenText(t, line))
		}
		if diff := cmp.Diff(want, texts); diff != "" {
			t.Errorf("encoding %d (-want +got):\n%s\n%v", enc, diff, got)
		}
	}
}

func TestSemanticTokensInlineMarkerAndThinking(t *testing.T) {
	doc := chatdoc.Parse(lines(
		"@You: hello @./notes.md there",
		"@Assistant:",
		"<thinking>",
		"a😀b",
		"</thinking>",
		"<!-- flemma:aborted: stop -->",
	))
	got := decodeTokens(doc, chatdoc.UTF16, SemanticTokens(doc, chatdoc.UTF16))
	want := []string{
		`0:0 5 keyword+deprecated "@You:"`,
		`0:12 11 string "@./notes.md"`,
		`1:0 11 keyword "@Assistant:"`,
		`2:0 10 comment "<thinking>"`,
		`3:0 4 comment "a😀b"`,
		`4:0 11 comment "</thinking>"`,
		`5:0 29 comment "<!-- flemma:aborted: stop -->"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
}

// TestSemanticTokensDelta checks that applying the delta to the old array
// always gives the new one, and that the edit is cut at whole tokens.
func TestSemanticTokensDelta(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	randomTokens := func() []uint32 {
		n := rng.Intn(6) * 5
		out := make([]uint32, n)
		for i := range out {
			out[i] = uint32(rng.Intn(3))
		}
		return out
	}
	for i := 0; i < 5000; i++ {
		prev, cur := randomTokens(), randomTokens()
		if rng.Intn(3) == 0 {
			cur = append(append([]uint32{}, prev...), cur...)
		}
		edits := SemanticTokensDelta(prev, cur)
		got := append([]uint32{}, prev...)
		for _, e := range edits {
			if e.Start%5 != 0 || e.DeleteCount%5 != 0 || len(e.Data)%5 != 0 {
				t.Fatalf("edit not token aligned: %+v", e)
			}
			got = append(append(append([]uint32{}, got[:e.Start]...), e.Data...), got[e.Start+e.DeleteCount:]...)
		}
		if !cmp.Equal(got, cur, cmpopts.EquateEmpty()) {
			t.Fatalf("prev %v cur %v: edits %+v give %v", prev, cur, edits, got)
		}
	}
	if edits := SemanticTokensDelta([]uint32{1, 2, 3, 4, 5}, []uint32{1, 2, 3, 4, 5}); edits == nil || len(edits) != 0 {
		t.Errorf("identical arrays: %+v", edits)
	}
	// Arrays that are not whole tokens still yield a correct edit.
	edits := SemanticTokensDelta([]uint32{1, 2, 3}, []uint32{1, 9, 3})
	if len(edits) != 1 || edits[0].Start != 0 || edits[0].DeleteCount != 3 {
		t.Errorf("ragged arrays: %+v", edits)
	}
}

func TestSemanticTokensLegendCoversKinds(t *testing.T) {
	legend := SemanticTokensLegend()
	if len(legend.TokenTypes) != tokenFileRef+1 {
		t.Errorf("legend has %d types, code uses %d", len(legend.TokenTypes), tokenFileRef+1)
	}
	if len(legend.TokenModifiers) != 2 {
		t.Errorf("legend has %d modifiers", len(legend.TokenModifiers))
	}
}
