package surface

import (
	"strconv"
	"sync"

	"github.com/chatls/chatls/chatdoc"
)

// TokenResults answers textDocument/semanticTokens/full and .../delta for
// one open document: tokens through a TokenCache, and the last result sent
// (its ID and data), the base of the next delta. Safe for concurrent use.
type TokenResults struct {
	cache *TokenCache

	mu     sync.Mutex
	serial int
	lastID string
	last   []uint32
}

// NewTokenResults starts with nothing sent.
func NewTokenResults() *TokenResults { return &TokenResults{cache: NewTokenCache()} }

// Full is every token of doc: {"resultId", "data"}.
func (t *TokenResults) Full(doc *chatdoc.Document, enc chatdoc.Encoding) map[string]any {
	data := t.cache.Tokens(doc, enc)
	_, id := t.remember(data)
	return map[string]any{"resultId": id, "data": data}
}

// Delta is the edits from the result previousID to doc's tokens
// ({"resultId", "edits"}), or all of them when the client has another
// result than the last one sent.
func (t *TokenResults) Delta(doc *chatdoc.Document, enc chatdoc.Encoding, previousID string) map[string]any {
	data := t.cache.Tokens(doc, enc)
	prev, id := t.remember(data)
	if prev.id != previousID {
		return map[string]any{"resultId": id, "data": data}
	}
	return map[string]any{"resultId": id, "edits": SemanticTokensDelta(prev.data, data)}
}

type sentTokens struct {
	id   string
	data []uint32
}

// remember stores data as the last result sent and returns the one before.
func (t *TokenResults) remember(data []uint32) (prev sentTokens, id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prev = sentTokens{t.lastID, t.last}
	t.serial++
	t.lastID, t.last = strconv.Itoa(t.serial), data
	return prev, t.lastID
}
