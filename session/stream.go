package session

import (
	"strings"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

// streamState is the `@Assistant:` message being streamed into a document
// (SPEC §7 "What the document gets"). Its place is a marker that follows
// every change of the document — the user may type anywhere meanwhile,
// also at its end and inside the message — never a stale offset. All
// fields are under Session.mu.
type streamState struct {
	// marker is where the next text goes in the newest snapshot: the end
	// of what landed. The user's typing at the marker stays after it.
	marker int
	// header is where the `@Assistant:` text that was written begins, and
	// headerText what it was (removed again when nothing else came).
	header     int
	headerText string
	// inflight is the text of the edit sent and not yet in the server's
	// view; pending waits for the next edit.
	inflight string
	pending  strings.Builder
	// keeper says the document has a line ending of ours after the marker:
	// the first edit writes one after the `@Assistant:` line and the last
	// one uses it as its own final line ending. So the answer is never
	// inserted at the very end of the document, where clients differ
	// (Neovim adds a line ending of its own to a last line without one).
	keeper bool
	// ended: the message's last text was pushed; final: the edit in
	// flight is the last one (it ends the message with the keeper).
	ended, final bool
	// newline is the document's line ending: streamed text uses it.
	newline string
	// wake tells the writer that text is pending (buffered, coalescing).
	wake chan struct{}
}

func newStreamState(doc *chatdoc.Document) *streamState {
	return &streamState{marker: doc.Len(), header: -1, newline: doc.Newline, wake: make(chan struct{}, 1)}
}

// push queues text for the document; the caller holds Session.mu.
func (st *streamState) push(text string) {
	if text == "" {
		return
	}
	if st.newline == "\r\n" {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	st.pending.WriteString(text)
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// end queues the message's last text: nothing is pushed after it.
func (st *streamState) end(text string) {
	st.push(text)
	st.ended = true
}

// take moves the pending text in flight; "" when the last edit has not
// landed yet or nothing waits. Once the message ended, the text's last line
// ending is the keeper's. The caller holds Session.mu.
func (st *streamState) take() string {
	final := st.ended
	if st.inflight != "" || st.pending.Len() == 0 {
		return ""
	}
	text := st.pending.String()
	st.pending.Reset()
	if st.header < 0 {
		st.header, st.headerText = st.marker, text
	}
	st.final = final
	if final && st.keeper && strings.HasSuffix(text, st.newline) {
		text = strings.TrimSuffix(text, st.newline)
		if text == "" {
			st.keeper = false // the keeper ends the message as it is
			return ""
		}
	}
	st.inflight = text
	return text
}

// edit is the insertion that writes the text in flight: the first one
// brings the keeper with it.
func (st *streamState) edit() chatdoc.TextEdit {
	text := st.inflight
	if !st.keeper && !st.final {
		text += st.newline
	}
	return chatdoc.TextEdit{Span: chatdoc.Span{Start: st.marker, End: st.marker}, NewText: text}
}

// landed moves the marker past the text in flight, which is now in the
// server's view. The caller holds Session.mu.
func (st *streamState) landed() {
	st.marker += len(st.inflight)
	if st.final {
		st.keeper = false
	} else {
		st.keeper = true
	}
	st.inflight = ""
}

// lost takes back the stream's edits among the server's own edits that the
// client turned out not to have (newest first) and queues their text
// again. The caller holds Session.mu.
func (st *streamState) lost(own []*ownEdit) {
	for i := len(own) - 1; i >= 0; i-- {
		e := own[i]
		if !e.installed || len(e.edits) != 1 || e.edits[0].Span.Len() != 0 {
			continue
		}
		te := e.edits[0]
		text := te.NewText
		switch {
		case te.Span.Start == st.header && strings.HasPrefix(text, st.headerText):
			// The first edit: the header and the keeper go again.
			text = strings.TrimSuffix(text, st.newline)
			st.header, st.headerText, st.keeper = -1, "", false
		case te.Span.Start+len(text) == st.marker && st.keeper:
		case te.Span.Start+len(text) == st.marker && !st.keeper:
			// The last edit: its line ending was the keeper.
			text += st.newline
			st.keeper, st.final = true, false
		default:
			continue
		}
		st.marker = te.Span.Start
		rest := st.pending.String()
		st.pending.Reset()
		st.pending.WriteString(text + st.inflight + rest)
		st.inflight = ""
	}
}

// follow moves the marker through a change of the document, old → next.
// The edit in flight landing moves it past the new text; the user's text
// before it shifts it; the user's typing exactly at it stays after it.
// The caller holds Session.mu.
func (st *streamState) follow(old, next *chatdoc.Document, ranged bool, start, oldEnd, inserted int) {
	if st.inflight != "" && st.ours(old, next, ranged, start, oldEnd, inserted) {
		st.landed()
		return
	}
	delta := inserted - (oldEnd - start)
	st.header = shift(st.header, start, oldEnd, delta)
	switch {
	case start == st.marker && oldEnd == st.marker:
		// Typed right after the streamed text: it stays after it.
	case oldEnd <= st.marker:
		st.marker += delta
	case start < st.marker:
		st.marker = start // a change across the marker: go on before it
	}
}

// ours says whether the change is the edit in flight landing in the
// server's view (own_edits.go installs it with its exact span).
func (st *streamState) ours(old, next *chatdoc.Document, ranged bool, start, oldEnd, inserted int) bool {
	want := st.edit().NewText
	return ranged && start == st.marker && oldEnd == st.marker && inserted == len(want) && next.Slice(start, start+inserted) == want
}

// shift moves an offset through a change that is not ours (-1 stays).
func shift(at, start, oldEnd, delta int) int {
	switch {
	case at < 0 || at < start:
		return at
	case oldEnd <= at:
		return at + delta
	}
	return start
}

// changedRegion is one change covering what the client changed: old
// [start, oldEnd) became `inserted` bytes. A single ranged change is exact;
// several, or a whole-text change (Vim's ALE), are compared by their
// common prefix and suffix.
func changedRegion(old, next *chatdoc.Document, changes []chatdoc.Change, enc chatdoc.Encoding) (start, oldEnd, inserted int) {
	if len(changes) == 1 && changes[0].Range != nil {
		sp := old.Span(*changes[0].Range, enc)
		return sp.Start, sp.End, len(changes[0].Text)
	}
	a, b := old.Text(), next.Text()
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p, len(a) - s, len(b) - s - p
}

// streamFlushEvery bounds the edit rate while a response streams (SPEC §7:
// at most ~20 edits a second, none later than 100 ms after its tokens).
const streamFlushEvery = 50 * time.Millisecond

// writeStream writes the stream's text into the document until stop is
// closed and everything pushed before it landed (or the document closed).
func (s *Session) writeStream(ds *Doc, st *streamState, stop <-chan struct{}) {
	var last time.Time
	for {
		stopping := false
		select {
		case <-st.wake:
		case <-stop:
			stopping = true
		case <-ds.done:
			return
		}
		if wait := streamFlushEvery - time.Since(last); wait > 0 && !stopping {
			select {
			case <-time.After(wait):
			case <-stop:
			case <-ds.done:
				return
			}
		}
		for {
			s.mu.Lock()
			first := st.header < 0
			text := st.take()
			s.mu.Unlock()
			if text == "" {
				break
			}
			if !first {
				// The first edit (the `@Assistant:` line, written as the
				// request starts) does not hold back the first text: that
				// goes in the moment it arrives; the rate counts from there.
				last = time.Now()
			}
			// No label: Neovim prints an edit's label, twenty times a second.
			landed := s.editDocument(ds, "", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
				s.mu.Lock()
				defer s.mu.Unlock()
				if st.inflight == "" || doc != ds.snap {
					return nil, nil
				}
				return []chatdoc.TextEdit{st.edit()}, nil
			})
			if !landed && !s.open(ds) {
				// The document closed or the server stops (the client went
				// away): nothing will take the text. Trying again would spin
				// for ever and keep the server from exiting.
				return
			}
			s.mu.Lock()
			if st.inflight != "" && !ds.closed {
				// Not in the document (the client refused it for good or
				// closed): send it again with what came since.
				rest := st.pending.String()
				st.pending.Reset()
				st.pending.WriteString(st.inflight + rest)
				st.inflight = ""
			}
			s.mu.Unlock()
			if !stopping {
				break
			}
		}
		if stopping {
			return
		}
	}
}
