package chatdoc

import (
	"math/rand"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"
	"weak"
)

// TestMovedChunksReadConcurrently: snapshots are read from several
// goroutines at once (diagnostics, requests). A moved chunk is copied on
// first read; every reader must get the same copy, so pointers stay stable
// within a snapshot (run with -race).
func TestMovedChunksReadConcurrently(t *testing.T) {
	withChunkSize(t, 4)
	var b strings.Builder
	for i := range 60 {
		b.WriteString("@You:\nrun it\n\n@Assistant:\n**Tool Use:** `bash` (`id" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "`)\n\n```json\n{\"command\":\"true\"}\n```\n\n")
	}
	doc := Parse(b.String())
	next := doc.Replace(Span{7, 7}, "x") // inside the first message: every later chunk moves
	if next.store.pos[len(next.store.pos)-1].delta != 1 {
		t.Fatalf("the last chunk did not move by one byte: %+v", next.store.pos[len(next.store.pos)-1])
	}
	const readers = 8
	got := make([][]*Message, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			switch r % 4 {
			case 0:
				got[r] = next.Messages()
			case 1:
				for i := range next.MessageCount() {
					got[r] = append(got[r], next.Message(i))
				}
			case 2:
				for i := next.MessageCount() - 1; i >= 0; i-- {
					got[r] = append([]*Message{next.Message(i)}, got[r]...)
				}
			default:
				_ = next.ToolUses()
				_ = next.Diagnostics()
				got[r] = next.MessageRange(0, next.MessageCount())
			}
		})
	}
	wg.Wait()
	for r := 1; r < readers; r++ {
		for i := range got[0] {
			if got[r][i] != got[0][i] {
				t.Fatalf("reader %d got another copy of message %d", r, i)
			}
		}
	}
	assertSameDoc(t, next, Parse(next.Text()))
}

// TestChunksStayFewAfterManyEdits: edits all over a long conversation
// split and rebuild chunks; their number must stay near count/chunkSize,
// or lookups and every edit's header copy would creep towards O(messages).
func TestChunksStayFewAfterManyEdits(t *testing.T) {
	withChunkSize(t, 16)
	var b strings.Builder
	for i := range 1500 {
		b.WriteString("@You:\nquestion " + strings.Repeat("q", i%7) + "\n\n@Assistant:\nanswer\n\n")
	}
	doc := Parse(b.String())
	r := rand.New(rand.NewSource(1))
	for step := range 3000 {
		at := r.Intn(doc.Len())
		if step%2 == 0 {
			doc = doc.Replace(Span{at, at}, "x")
		} else {
			doc = doc.Replace(Span{at, min(doc.Len(), at+1)}, "")
		}
	}
	chunks, limit := len(doc.store.chunks), 3*(doc.MessageCount()/chunkSize+1)/2
	t.Logf("%d chunks for %d messages (a fresh parse: %d)", chunks, doc.MessageCount(), len(Parse(doc.Text()).store.chunks))
	if chunks > limit {
		t.Errorf("%d chunks for %d messages after 3,000 edits; want at most %d", chunks, doc.MessageCount(), limit)
	}
	assertSameDoc(t, doc, Parse(doc.Text()))
}

// TestReplacedMessagesAreReleased: a chunk kept after an edit must not pin
// the messages the edit replaced (through a backing array shared with the
// chunks of the parse, or with the chunk it was cut from), or a long
// editing session would keep a second copy of what it changed.
func TestReplacedMessagesAreReleased(t *testing.T) {
	withChunkSize(t, 8) // message 17 is in the chunk of 16–23: an edit there keeps 18–23 as a moved rest
	var b strings.Builder
	for range 20 {
		b.WriteString("@You:\nquestion\n\n@Assistant:\nanswer\n\n")
	}
	doc := Parse(b.String())
	first, middle := weak.Make(doc.Message(0)), weak.Make(doc.Message(17))
	doc = doc.Replace(Span{7, 7}, "x")   // message 0 is reparsed
	at := doc.Message(21).Span.Start + 7 // inside message 21's text
	doc = doc.Replace(Span{at, at}, "y") // its chunk is cut around it
	if doc.Message(0) == first.Value() || doc.Message(17) == middle.Value() {
		t.Fatal("the edited messages were not reparsed")
	}
	runtime.GC()
	if first.Value() != nil || middle.Value() != nil {
		t.Errorf("replaced messages still reachable (first %v, middle %v)", first.Value() != nil, middle.Value() != nil)
	}
	runtime.KeepAlive(doc)
}

// withChunkSize makes chunks of n messages for the rest of the test.
func withChunkSize(t *testing.T, n int) {
	saved := chunkSize
	chunkSize = n
	t.Cleanup(func() { chunkSize = saved })
}

// TestMessageSpanPlacesNoChunk: after an edit near the top, the spans of
// later messages are read from the moved chunks as stored (what the cycle
// reads past the edited messages on every keystroke), equal to the placed
// messages' spans.
func TestMessageSpanPlacesNoChunk(t *testing.T) {
	withChunkSize(t, 4)
	var b strings.Builder
	for range 40 {
		b.WriteString("@You:\nrun it\n\n@Assistant:\nsure\n\n")
	}
	next := Parse(b.String()).Replace(Span{7, 7}, "xy")
	last := len(next.store.pos) - 1
	if next.store.pos[last].delta != 2 {
		t.Fatalf("the last chunk did not move by two bytes: %+v", next.store.pos[last])
	}
	spans := make([]Span, next.MessageCount())
	for i := range spans {
		spans[i] = next.MessageSpan(i)
	}
	for k := range next.store.live {
		if next.store.live[k].Load() != nil {
			t.Fatalf("MessageSpan placed chunk %d", k)
		}
	}
	for i, m := range Parse(next.Text()).Messages() {
		if spans[i] != m.Span || next.Message(i).Span != m.Span {
			t.Fatalf("message %d: MessageSpan %+v, Message %+v, a full parse %+v", i, spans[i], next.Message(i).Span, m.Span)
		}
	}
}

// TestReparsedNodesPinNoPiece: the strings of a message parsed after an
// edit are not substrings of the text's pieces, so an answer's messages do
// not keep a version of the document's last piece alive each (RssAnon grew
// 9–23 KB per streamed answer; docs/performance.md, "Memory while typing
// and streaming").
func TestReparsedNodesPinNoPiece(t *testing.T) {
	doc := Parse("@You:\nrun it\n")
	turn := "\n@Assistant:\n**Tool Use:** `bash` (`toolu_1`)\n\n```json\n{\"command\":\"true\"}\n```\n"
	doc = doc.Replace(Span{doc.Len(), doc.Len()}, turn)
	u := doc.ToolUse("toolu_1")
	if u == nil || u.RawInput == "" {
		t.Fatalf("no tool use parsed:\n%s", doc.Text())
	}
	inside := func(s string) bool {
		for _, p := range doc.text.pieces {
			lo, hi := uintptr(unsafe.Pointer(unsafe.StringData(p.s))), uintptr(unsafe.Pointer(unsafe.StringData(p.s)))+uintptr(len(p.s))
			if at := uintptr(unsafe.Pointer(unsafe.StringData(s))); lo <= at && at < hi {
				return true
			}
		}
		return false
	}
	for name, s := range map[string]string{"ID": u.ID, "Name": u.Name, "RawInput": u.RawInput} {
		if inside(s) {
			t.Errorf("the tool use's %s is a substring of a piece", name)
		}
	}
}
