package surface

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
)

// TestTokenCacheMatchesFullComputation edits documents at random, through
// the incremental parser, and checks the cached tokens against a fresh
// computation after every step, in both encodings.
func TestTokenCacheMatchesFullComputation(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	inserts := []string{"x", "\n", "@You:\n", "\n@Assistant:\n", "```\n", "😀", "**Tool Use:** `bash` (`q`)\n\n```json\n{}\n```\n", "\r\n", "<thinking>\n"}
	docs := garbageDocuments(t, 40)
	for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8} {
		for di, text := range docs {
			cache := NewTokenCache()
			doc := chatdoc.Parse(text)
			for step := 0; step < 25; step++ {
				got := cache.Tokens(doc, enc)
				want := SemanticTokens(doc, enc)
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("doc %d step %d enc %d: cached tokens differ (-want +got):\n%s", di, step, enc, diff)
				}
				a := rng.Intn(doc.Len() + 1)
				b := min(doc.Len(), a+rng.Intn(4))
				ins := ""
				if rng.Intn(3) > 0 {
					ins = inserts[rng.Intn(len(inserts))]
				}
				if rng.Intn(10) == 0 {
					doc = chatdoc.Parse(doc.Text()[:a] + ins + doc.Text()[b:]) // new pointers everywhere
				} else {
					doc = doc.Replace(chatdoc.Span{Start: a, End: b}, ins)
				}
			}
		}
	}
}

func TestTokenCacheEncodingSwitch(t *testing.T) {
	doc := corpus(t, "11-crlf-unicode.chat")
	cache := NewTokenCache()
	for _, enc := range []chatdoc.Encoding{chatdoc.UTF16, chatdoc.UTF8, chatdoc.UTF16} {
		if diff := cmp.Diff(SemanticTokens(doc, enc), cache.Tokens(doc, enc)); diff != "" {
			t.Errorf("enc %d:\n%s", enc, diff)
		}
	}
	if got := (*TokenCache)(nil).Tokens(nil, chatdoc.UTF16); got == nil || len(got) != 0 {
		t.Errorf("nil doc: %v", got)
	}
}

// TestTokenCacheReusesMovedMessages: after an edit in the middle, the later
// messages move (new pointers, same text) and must still be reused; only
// the edited one is encoded again.
func TestTokenCacheReusesMovedMessages(t *testing.T) {
	doc := chatdoc.Parse(chatgen.Generate(200<<10, 2))
	m := doc.Messages()[len(doc.Messages())/2]
	p := doc.Lines.Position(m.MarkerSpan.End+1, chatdoc.UTF16)
	edited := doc.Apply([]chatdoc.Change{{Range: &chatdoc.Range{Start: p, End: p}, Text: "x"}}, chatdoc.UTF16)
	c := NewTokenCache()
	c.Tokens(doc, chatdoc.UTF16)
	for k, d := range []*chatdoc.Document{edited, doc} {
		reuse, _ := c.matcher(d, chatdoc.UTF16, storedMessagesOf(d))
		misses := 0
		for i := range d.MessageCount() {
			if reuse(i) == nil {
				misses++
			}
		}
		if misses != 1 {
			t.Errorf("step %d: %d of %d messages encoded again, want 1", k, misses, len(d.Messages()))
		}
		c.Tokens(d, chatdoc.UTF16)
	}
}

// In a document of several parts (chatdoc.EachPart), edits near the top,
// in the middle and across messages keep the cached tokens equal to a
// fresh computation, and a keystroke near the top encodes one message
// again.
func TestTokenCacheAcrossParts(t *testing.T) {
	doc := chatdoc.Parse(chatgen.Generate(600<<10, 3))
	if doc.MessageCount() < 600 {
		t.Fatalf("%d messages: want several parts", doc.MessageCount())
	}
	rng := rand.New(rand.NewSource(11))
	c := NewTokenCache()
	c.Tokens(doc, chatdoc.UTF16)
	for step := range 30 {
		at := doc.Message(2).Span.Start - 1 // after the second message
		switch step % 3 {
		case 1:
			at = rng.Intn(doc.Len())
		case 2:
			at = doc.Message(rng.Intn(doc.MessageCount())).Span.Start
		}
		ins := []string{"x", "\n@You:\nhi\n", "😀", ""}[rng.Intn(4)]
		doc = doc.Replace(chatdoc.Span{Start: at, End: min(doc.Len(), at+rng.Intn(3))}, ins)
		if step%3 == 0 && ins == "x" {
			reuse, _ := c.matcher(doc, chatdoc.UTF16, storedMessagesOf(doc))
			misses := 0
			for i := range doc.MessageCount() {
				if reuse(i) == nil {
					misses++
				}
			}
			if misses > 1 {
				t.Fatalf("step %d: a keystroke near the top encodes %d messages again", step, misses)
			}
		}
		if want, got := SemanticTokens(doc, chatdoc.UTF16), c.Tokens(doc, chatdoc.UTF16); !slices.Equal(want, got) {
			t.Fatalf("step %d: cached tokens differ (-want +got):\n%s", step, cmp.Diff(want, got))
		}
	}
}
