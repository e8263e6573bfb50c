package surface

import (
	"sync"

	"github.com/chatls/chatls/chatdoc"
)

// TokenCache makes semantic tokens cheap on a document that is being edited:
// tokens are encoded per message relative to the message's first line, and a
// message whose text is unchanged since the previous call reuses its tokens.
// Keep one cache per open document; it is safe for concurrent use. Each call
// returns a fresh slice, so earlier results stay valid for deltas.
type TokenCache struct {
	mu      sync.Mutex
	enc     chatdoc.Encoding
	stored  []*chatdoc.Message // the last call's messages as stored (chatdoc.EachPart)
	texts   []string
	encoded []*encodedMessage
	size    int // integers in the last result, to size the next one
}

// encodedMessage is one message's tokens; the first token's line is relative
// to the message's first line, lastLine likewise.
type encodedMessage struct {
	data               []uint32
	lastLine, lastChar int
}

// NewTokenCache returns an empty cache.
func NewTokenCache() *TokenCache { return &TokenCache{} }

// storedMessages are a document's messages as stored, each with how far it
// moved since: reading them copies no part an edit moved.
type storedMessages struct {
	msgs   []*chatdoc.Message
	deltas []int
}

func storedMessagesOf(doc *chatdoc.Document) storedMessages {
	st := storedMessages{msgs: make([]*chatdoc.Message, 0, doc.MessageCount()), deltas: make([]int, 0, doc.MessageCount())}
	doc.EachPart(func(p chatdoc.Part) {
		for _, m := range p.Stored {
			st.msgs = append(st.msgs, m)
			st.deltas = append(st.deltas, p.Delta)
		}
	})
	return st
}

// span is message i's span in the document.
func (st storedMessages) span(i int) chatdoc.Span { return st.msgs[i].Span.Shift(st.deltas[i]) }

// Tokens is SemanticTokens through the cache. A nil cache computes
// everything and remembers nothing.
func (c *TokenCache) Tokens(doc *chatdoc.Document, enc chatdoc.Encoding) []uint32 {
	if doc == nil {
		return []uint32{}
	}
	msgs := storedMessagesOf(doc)
	var reuse func(i int) *encodedMessage
	var reusedText func(i int) string
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		reuse, reusedText = c.matcher(doc, enc, msgs)
	}
	var texts []string
	var encoded []*encodedMessage
	size := doc.Len() / 16 // a guess for the first call: about one token per 80 bytes
	if c != nil {
		texts = make([]string, len(msgs.msgs))
		encoded = make([]*encodedMessage, len(msgs.msgs))
		size = c.size
	}
	var scratch tokenScratch
	lines := doc.Lines.Cursor()
	data := make([]uint32, 0, size+64)
	data, prevLine, prevChar := encodeTokens(data, lines, enc, frontmatterTokens(doc), 0, 0)
	for i := range msgs.msgs {
		var em *encodedMessage
		if reuse != nil {
			em = reuse(i)
		}
		if em == nil && c == nil {
			// Nothing to remember: encode straight into the result.
			m := doc.Message(i)
			w := spanWindow(doc, m.Span)
			data, prevLine, prevChar = encodeTokens(data, lines, enc, messageTokens(&w, m, &scratch), prevLine, prevChar)
			continue
		}
		var text string
		if em != nil {
			text = reusedText(i) // the message's text, known equal
		} else {
			// Only here is the message needed where it is now: a part the
			// edit replaced, whose messages are stored in place.
			m := doc.Message(i)
			var w textWindow
			em, w = encodeMessage(doc, lines, enc, m, &scratch)
			span := w.clamp(m.Span)
			text = w.str(span.Start, span.End)
		}
		texts[i], encoded[i] = text, em
		if len(em.data) == 0 {
			continue
		}
		base := lines.LineOf(msgs.span(i).Start)
		firstLine, firstChar := base+int(em.data[0]), int(em.data[1])
		deltaLine, deltaChar := firstLine-prevLine, firstChar
		if deltaLine == 0 {
			deltaChar -= prevChar
		}
		if deltaLine < 0 || deltaChar < 0 { // cannot happen for well-formed spans; stay valid anyway
			continue
		}
		data = append(data, uint32(deltaLine), uint32(deltaChar))
		data = append(data, em.data[2:]...)
		prevLine, prevChar = base+em.lastLine, em.lastChar
	}
	if c != nil {
		c.enc, c.stored, c.texts, c.encoded, c.size = enc, msgs.msgs, texts, encoded, len(data)
	}
	return data
}

// encodeMessage encodes one message relative to its first line; it returns
// the window it read the message through.
func encodeMessage(doc *chatdoc.Document, lines *chatdoc.LineCursor, enc chatdoc.Encoding, m *chatdoc.Message, scratch *tokenScratch) (*encodedMessage, textWindow) {
	base := lines.LineOf(m.Span.Start)
	w := spanWindow(doc, m.Span)
	data, last, lastChar := encodeTokens(nil, lines, enc, messageTokens(&w, m, scratch), base, 0)
	return &encodedMessage{data: data, lastLine: last - base, lastChar: lastChar}, w
}

// matcher pairs the new document's messages with the previous call's: a
// common prefix and a common suffix, like SemanticTokensDelta does for the
// integers. A message is the same when its part is shared with the previous
// call's document (the same stored message), or else when its text is equal
// (after a full parse, say). Messages in between are encoded again. A
// message's tokens depend only on its own text, since the parser starts
// every message in the same state. The second function gives a reused
// message's text (the previous call's string, equal to it).
func (c *TokenCache) matcher(doc *chatdoc.Document, enc chatdoc.Encoding, msgs storedMessages) (func(int) *encodedMessage, func(int) string) {
	if c.enc != enc || len(c.stored) == 0 {
		return nil, nil
	}
	textLen := doc.Len()
	same := func(i, j int) bool {
		if c.encoded[j] == nil {
			return false
		}
		if msgs.msgs[i] == c.stored[j] {
			return true
		}
		span := msgs.span(i)
		start := min(max(span.Start, 0), textLen)
		end := min(max(span.End, start), textLen)
		return end-start == len(c.texts[j]) && doc.Slice(start, end) == c.texts[j]
	}
	n, o := len(msgs.msgs), len(c.stored)
	prefix := 0
	for prefix < n && prefix < o && same(prefix, prefix) {
		prefix++
	}
	suffix := 0
	for suffix < n-prefix && suffix < o-prefix && same(n-1-suffix, o-1-suffix) {
		suffix++
	}
	oldEncoded, oldTexts := c.encoded, c.texts
	old := func(i int) int {
		switch {
		case i < prefix:
			return i
		case i >= n-suffix:
			return i - (n - o)
		}
		return -1
	}
	return func(i int) *encodedMessage {
			if j := old(i); j >= 0 {
				return oldEncoded[j]
			}
			return nil
		}, func(i int) string {
			return oldTexts[old(i)]
		}
}
