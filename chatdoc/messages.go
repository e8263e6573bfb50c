package chatdoc

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// A snapshot keeps its messages in chunks of about chunkSize consecutive
// messages. An edit replaces the chunks it touches and shares every other
// one with the previous snapshot, recording how far it moved (chunkPos)
// instead of copying its messages: a keystroke near the top of a large
// document costs a header per chunk, not a copy of every later message. A
// moved chunk's messages are copied with their new offsets the first time
// someone asks for them in that snapshot (chunkMessages), so a reader that
// looks at a few messages pays for a few chunks.

// chunkSize is how many messages a chunk holds (a variable so tests can
// make it tiny).
var chunkSize = 128

// msgChunk is a run of messages as a parse or an earlier copy left them.
// Immutable and shared between snapshots.
type msgChunk struct {
	msgs          []*Message // offsets and message indexes as stored
	uses, results int        // tool uses and results in msgs
	// usesBefore[j] and resultsBefore[j] count the nodes in msgs[:j]: the
	// n-th tool use of the chunk is found by binary search.
	usesBefore, resultsBefore []int32
}

func newChunk(msgs []*Message) *msgChunk {
	c := &msgChunk{msgs: msgs, usesBefore: make([]int32, len(msgs)+1), resultsBefore: make([]int32, len(msgs)+1)}
	for j, m := range msgs {
		c.uses += len(m.ToolUses)
		c.results += len(m.ToolResults)
		c.usesBefore[j+1], c.resultsBefore[j+1] = int32(c.uses), int32(c.results)
	}
	return c
}

// chunkPos is where a chunk sits in one snapshot.
type chunkPos struct {
	delta, dIndex    int // add to the stored offsets and message indexes
	msg, use, result int // snapshot index of the chunk's first message, tool use, tool result
}

// messageStore is a snapshot's messages. Lists that span the whole
// document are built on first use and kept.
type messageStore struct {
	chunks                 []*msgChunk
	pos                    []chunkPos
	live                   []atomic.Pointer[[]*Message] // a moved chunk's messages in this snapshot, once copied
	count, nUses, nResults int

	all       lazyList[*Message]
	uses      lazyList[*ToolUse]
	results   lazyList[*ToolResult]
	diagsOnce sync.Once
	diags     []Diagnostic
}

// lazyList is a document-wide list built on first use, or handed over by
// the snapshot before when an edit leaves it nearly the same.
type lazyList[T any] struct {
	once sync.Once
	v    atomic.Pointer[[]T]
}

func (l *lazyList[T]) get(build func() []T) []T {
	l.once.Do(func() {
		v := build()
		l.v.Store(&v)
	})
	return *l.v.Load()
}

// built is the list if it was built already.
func (l *lazyList[T]) built() ([]T, bool) {
	if p := l.v.Load(); p != nil {
		return *p, true
	}
	return nil, false
}

func (l *lazyList[T]) set(v []T) { l.get(func() []T { return v }) }

// newMessageStore stores the messages of a full parse.
func newMessageStore(msgs []*Message) *messageStore {
	var chunks []*msgChunk
	for len(msgs) > 0 {
		n := min(chunkSize, len(msgs))
		if len(msgs) < 2*chunkSize {
			n = len(msgs)
		}
		// Each chunk gets an array of its own: one shared with the others
		// would keep the messages an edit replaces reachable.
		chunks = append(chunks, newChunk(slices.Clone(msgs[:n])))
		msgs = msgs[n:]
	}
	return newStoreOf(chunks, make([]chunkPos, len(chunks)))
}

// newStoreOf completes a store from its chunks and their moves (pos's
// delta and dIndex; the cumulative indexes are filled in here).
func newStoreOf(chunks []*msgChunk, pos []chunkPos) *messageStore {
	st := &messageStore{chunks: chunks, pos: pos, live: make([]atomic.Pointer[[]*Message], len(chunks))}
	for k, c := range chunks {
		st.pos[k].msg, st.pos[k].use, st.pos[k].result = st.count, st.nUses, st.nResults
		st.count += len(c.msgs)
		st.nUses += c.uses
		st.nResults += c.results
	}
	return st
}

// chunkMessages are chunk k's messages with their offsets in this snapshot.
func (st *messageStore) chunkMessages(k int) []*Message {
	c, p := st.chunks[k], st.pos[k]
	if p.delta == 0 && p.dIndex == 0 {
		return c.msgs
	}
	if got := st.live[k].Load(); got != nil {
		return *got
	}
	msgs := appendShifted(make([]*Message, 0, len(c.msgs)), c.msgs, p.delta, p.dIndex)
	if !st.live[k].CompareAndSwap(nil, &msgs) {
		return *st.live[k].Load() // another reader copied it first: one set of pointers per snapshot
	}
	return msgs
}

// chunkOf is the chunk holding message i (0 <= i < count).
func (st *messageStore) chunkOf(i int) int {
	return sort.Search(len(st.pos), func(k int) bool { return st.pos[k].msg > i }) - 1
}

// spanOf is message i's span in this snapshot, read as stored: no chunk is
// placed (copied with its new offsets) for it.
func (st *messageStore) spanOf(i int) Span {
	k := st.chunkOf(i)
	s, delta := st.chunks[k].msgs[i-st.pos[k].msg].Span, st.pos[k].delta
	return Span{s.Start + delta, s.End + delta}
}

func (st *messageStore) message(i int) *Message {
	k := st.chunkOf(i)
	return st.chunkMessages(k)[i-st.pos[k].msg]
}

// span is [i, j) of the messages: placed, or as stored for a reader of
// what a move leaves alone (IDs), which then copies no chunk.
func (st *messageStore) span(i, j int, placed bool) []*Message {
	if i >= j {
		return nil
	}
	msgs := func(k int) []*Message {
		if placed {
			return st.chunkMessages(k)
		}
		return st.chunks[k].msgs
	}
	k := st.chunkOf(i)
	if last := st.chunkOf(j - 1); last == k {
		return msgs(k)[i-st.pos[k].msg : j-st.pos[k].msg]
	}
	out := make([]*Message, 0, j-i)
	for ; i < j; i++ {
		k = st.chunkOf(i)
		out = append(out, msgs(k)[i-st.pos[k].msg])
	}
	return out
}

// start is the offset at which message i starts, without copying its chunk.
func (st *messageStore) start(i int) int {
	k := st.chunkOf(i)
	return st.chunks[k].msgs[i-st.pos[k].msg].Span.Start + st.pos[k].delta
}

// indexAt is the index of the last message starting at or before offset,
// or -1.
func (st *messageStore) indexAt(offset int) int {
	k := sort.Search(len(st.chunks), func(k int) bool {
		return st.chunks[k].msgs[0].Span.Start+st.pos[k].delta > offset
	}) - 1
	if k < 0 {
		return -1
	}
	msgs, delta := st.chunks[k].msgs, st.pos[k].delta
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].Span.Start+delta > offset }) - 1
	return st.pos[k].msg + i
}

func (st *messageStore) messages() []*Message {
	return st.all.get(func() []*Message {
		if len(st.chunks) == 1 {
			return st.chunkMessages(0)
		}
		var all []*Message
		if st.count > 0 {
			all = make([]*Message, 0, st.count)
		}
		for k := range st.chunks {
			all = append(all, st.chunkMessages(k)...)
		}
		return all
	})
}

func (st *messageStore) toolUses() []*ToolUse {
	return st.uses.get(func() []*ToolUse { return gather(st, st.nUses, func(m *Message) []*ToolUse { return m.ToolUses }) })
}

func (st *messageStore) toolResults() []*ToolResult {
	return st.results.get(func() []*ToolResult {
		return gather(st, st.nResults, func(m *Message) []*ToolResult { return m.ToolResults })
	})
}

// gather is the document-wide list of the n nodes of messages (placed).
func gather[T any](st *messageStore, n int, of func(*Message) []*T) []*T {
	out := make([]*T, 0, n)
	for _, m := range st.messages() {
		out = append(out, of(m)...)
	}
	return out
}

// toolUse is the document's i-th tool use: from the list when it is built,
// else from its chunk (copying at most that one).
func (st *messageStore) toolUse(i int) *ToolUse {
	return nthNode(st, i, &st.uses, func(p chunkPos) int { return p.use },
		func(c *msgChunk) []int32 { return c.usesBefore }, func(m *Message) []*ToolUse { return m.ToolUses })
}

// toolResult is the document's i-th tool result, as toolUse.
func (st *messageStore) toolResult(i int) *ToolResult {
	return nthNode(st, i, &st.results, func(p chunkPos) int { return p.result },
		func(c *msgChunk) []int32 { return c.resultsBefore }, func(m *Message) []*ToolResult { return m.ToolResults })
}

// nthNode is the i-th node of a document-wide list: first is the index of
// a chunk's first node in that list, before its counts per message, of a
// message's nodes.
func nthNode[T any](st *messageStore, i int, list *lazyList[*T], first func(chunkPos) int, before func(*msgChunk) []int32, of func(*Message) []*T) *T {
	if nodes, ok := list.built(); ok {
		return nodes[i]
	}
	k := sort.Search(len(st.pos), func(k int) bool { return first(st.pos[k]) > i }) - 1
	n, counts := int32(i-first(st.pos[k])), before(st.chunks[k])
	j := sort.Search(len(counts)-1, func(j int) bool { return counts[j+1] > n })
	return of(st.chunkMessages(k)[j])[n-counts[j]]
}

// eachStored calls fn for every message as stored, with the delta to add
// to its offsets: for readers of what a move leaves alone (IDs, roles) or
// can shift themselves (diagnostics), without copying any chunk.
func (st *messageStore) eachStored(fn func(m *Message, delta int)) {
	for k, c := range st.chunks {
		for _, m := range c.msgs {
			fn(m, st.pos[k].delta)
		}
	}
}

// splice is the store after old messages [j, resume) were replaced by
// fresh ones (already at their final offsets and indexes) and every later
// message moved by delta bytes. Chunks before j and after resume are
// shared; the chunks holding j and resume are rebuilt around fresh.
func (st *messageStore) splice(j, resume int, fresh []*Message, delta int) *messageStore {
	dIndex := len(fresh) - (resume - j)
	nc := len(st.chunks)
	ca, cb := nc, nc
	if j < st.count {
		ca = st.chunkOf(j)
	}
	if resume < st.count {
		cb = st.chunkOf(resume)
	}
	var mid []*Message
	first := ca // the first chunk rebuilt
	if ca < nc {
		if j-st.pos[ca].msg+len(fresh) < chunkSize/2 && ca > 0 {
			first = ca - 1 // a short rebuilt chunk joins the one before it
			mid = append(mid, st.chunkMessages(first)...)
		}
		mid = append(mid, st.chunkMessages(ca)[:j-st.pos[ca].msg]...)
	}
	mid = append(mid, fresh...)
	keepFrom := cb // the first chunk kept after the rebuilt ones
	var rest *msgChunk
	var restPos chunkPos
	if cb < nc && st.pos[cb].msg < resume {
		keepFrom = cb + 1
		p, stored := st.pos[cb], st.chunks[cb].msgs[resume-st.pos[cb].msg:]
		if len(stored) > chunkSize/2 {
			// A long rest of the chunk stays as it is stored, moved (in an
			// array of its own, which does not pin the replaced messages).
			rest, restPos = newChunk(slices.Clone(stored)), chunkPos{delta: p.delta + delta, dIndex: p.dIndex + dIndex}
		} else {
			mid = appendShifted(mid, st.chunkMessages(cb)[resume-p.msg:], delta, dIndex)
		}
	}

	chunks := make([]*msgChunk, 0, nc+len(mid)/chunkSize+2)
	pos := make([]chunkPos, 0, cap(chunks))
	chunks = append(chunks, st.chunks[:first]...)
	pos = append(pos, st.pos[:first]...)
	for len(mid) > 0 {
		n := len(mid)
		if n >= 2*chunkSize {
			n = chunkSize
		}
		chunks = append(chunks, newChunk(mid[:n:n]))
		pos = append(pos, chunkPos{})
		mid = mid[n:]
	}
	if rest != nil {
		chunks = append(chunks, rest)
		pos = append(pos, restPos)
	}
	for k := keepFrom; k < nc; k++ {
		p := st.pos[k]
		p.delta += delta
		p.dIndex += dIndex
		chunks = append(chunks, st.chunks[k])
		pos = append(pos, p)
	}
	out := newStoreOf(chunks, pos)
	// Chunks that did not move keep the messages this snapshot copied.
	for k := 0; k < first; k++ {
		out.live[k].Store(st.live[k].Load())
	}
	if delta == 0 && dIndex == 0 {
		for k := keepFrom; k < nc; k++ {
			out.live[len(chunks)-(nc-k)].Store(st.live[k].Load())
		}
	}
	if resume == st.count || delta == 0 && dIndex == 0 {
		out.inheritLists(st, j, resume, fresh) // nothing after the edit moved
	}
	return out
}

// inheritLists gives out, made from st by replacing messages [j, resume)
// with fresh and moving nothing after them, the tool use and result lists
// st has built: the same list when the entries are the same pointers
// (typing in prose reuses the tool nodes, reuse.go), else one spliced from
// st's.
func (out *messageStore) inheritLists(st *messageStore, j, resume int, fresh []*Message) {
	// The message list is not taken over: the reparsed messages are new,
	// so it would be a copy of every pointer per keystroke (123 KB in the
	// 10 MB document) for readers that mostly want one message.
	if uses, ok := st.uses.built(); ok {
		out.uses.set(spliceList(uses, j, resume, fresh, func(m *Message) []*ToolUse { return m.ToolUses },
			func(u *ToolUse) int { return u.Message }))
	}
	if results, ok := st.results.built(); ok {
		out.results.set(spliceList(results, j, resume, fresh, func(m *Message) []*ToolResult { return m.ToolResults },
			func(r *ToolResult) int { return r.Message }))
	}
}

// spliceList is a document-wide list (tool uses or results) with the
// entries of messages [j, resume) replaced by those of fresh: old itself
// when they are the same pointers.
func spliceList[T any](old []*T, j, resume int, fresh []*Message, of func(*Message) []*T, msg func(*T) int) []*T {
	a := sort.Search(len(old), func(i int) bool { return msg(old[i]) >= j })
	b := sort.Search(len(old), func(i int) bool { return msg(old[i]) >= resume })
	n := 0
	for _, m := range fresh {
		n += len(of(m))
	}
	if n == b-a && sameEntries(old[a:b], fresh, of) {
		return old
	}
	out := make([]*T, 0, len(old)-(b-a)+n)
	out = append(out, old[:a]...)
	for _, m := range fresh {
		out = append(out, of(m)...)
	}
	return append(out, old[b:]...)
}

// sameEntries reports whether the fresh messages hold exactly the entries
// (pointers) of old, in order (see reuseNodes).
func sameEntries[T any](old []*T, fresh []*Message, of func(*Message) []*T) bool {
	i := 0
	for _, m := range fresh {
		for _, e := range of(m) {
			if old[i] != e {
				return false
			}
			i++
		}
	}
	return true
}

// PartKey names a part of a snapshot's messages (a chunk, see msgChunk):
// snapshots that share a part hold the same messages in it, moved by the
// difference of their deltas. A key keeps its part alive: hold keys of the
// current snapshot only.
type PartKey struct{ c *msgChunk }

// Part is one part of a snapshot as EachPart gives it.
type Part struct {
	Key PartKey
	// Delta is how far the part's messages moved since they were stored:
	// add it to their offsets.
	Delta int
	// FirstUse and FirstResult are the snapshot indexes of the part's first
	// tool use and result (for ToolUseAt and ToolResultAt).
	FirstUse, FirstResult int
	// Stored are the part's messages as stored: their IDs, names, inputs,
	// statuses and contents are this snapshot's, their offsets and message
	// indexes those of the snapshot that stored them (add Delta).
	Stored []*Message
}

// EachPart calls fn for each part of the snapshot in document order. For
// work per tool use that can be remembered per part and shifted, so that
// after an edit only the parts it touched are done again.
func (d *Document) EachPart(fn func(p Part)) {
	st := d.store
	for k, c := range st.chunks {
		fn(Part{Key: PartKey{c}, Delta: st.pos[k].delta, FirstUse: st.pos[k].use, FirstResult: st.pos[k].result, Stored: c.msgs})
	}
}

// EachToolResultAsStored calls fn with every tool result and its index
// in document order, as its part stores it: ID, Status, Dialect, Extra and
// Content are this snapshot's, but its spans, Fence and Message may still
// be those of an earlier snapshot (the part moved since; copying it is what
// this walk avoids). ToolResultAt(i) is the placed node, for the few a
// walk reports on.
func (d *Document) EachToolResultAsStored(fn func(i int, r *ToolResult)) {
	i := 0
	d.store.eachStored(func(m *Message, _ int) {
		for _, r := range m.ToolResults {
			fn(i, r)
			i++
		}
	})
}

// ToolUseAt is the i-th tool use (an index from a Part or ToolUseIndex),
// placed.
func (d *Document) ToolUseAt(i int) *ToolUse { return d.store.toolUse(i) }

// ToolResultAt is the i-th tool result (an index from
// EachToolResultAsStored or ToolResultIndex), placed.
func (d *Document) ToolResultAt(i int) *ToolResult { return d.store.toolResult(i) }

// ToolResultIndex is the index of the first tool result with that ID, or
// -1: what ToolResult(id) returns, without placing the node.
func (d *Document) ToolResultIndex(id string) int {
	if i, ok := d.ids.results.index(id); ok {
		return i
	}
	return -1
}

// IDSet is a set of tool use IDs. Immutable.
type IDSet struct{ ids idTable }

// Has reports whether id is in the set.
func (s IDSet) Has(id string) bool {
	_, ok := s.ids.index(id)
	return ok
}

// ToolUseIDs is the set of the document's tool use IDs. It is the
// document's own ID index, not a copy: a session that keeps the IDs its
// document had when opened (15,000 in a long conversation) keeps them for
// nothing as long as the later snapshots have the same IDs.
func (d *Document) ToolUseIDs() IDSet { return IDSet{d.ids.uses} }

// ToolUseIndex is ToolResultIndex for tool uses.
func (d *Document) ToolUseIndex(id string) int {
	if i, ok := d.ids.uses.index(id); ok {
		return i
	}
	return -1
}
