package surface

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/chatls/chatls/chatdoc"
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
