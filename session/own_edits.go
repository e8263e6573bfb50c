package session

import (
	"slices"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
)

// The server knows its own edits by their content, whatever shape the
// client echoes them in (SPEC §2 "Writing back"). Every edit it sends is an
// ownEdit: the text it built on and the text it expects after it. The
// client's next didChange is applied to the client's own text (Doc.base)
// and compared with what the server expected, never with the ranges it
// sent: Neovim echoes an insertion at the end as a replacement of the last
// line, Vim's ALE sends the whole text, VS Code sends its didChange before
// its reply. Once the client says it applied an edit (or cannot say: a
// silent client), the server's view moves on at once; nothing waits for
// the didChange to stream on or to answer a request.

// ownEdit is an edit of the server's that the client has not echoed yet.
type ownEdit struct {
	built    *chatdoc.Document // the server's view it was built on
	expected *chatdoc.Document // that view with the edit applied
	edits    []chatdoc.TextEdit
	// label and build make it again should it turn out lost after its
	// writer went on (a silent client that dropped it).
	label string
	build editBuilder
	// result is the tool ID whose result this edit writes, if any: while
	// it is written again the block counts as being written, so the pass
	// the same change wakes does not resolve it from the journal meanwhile.
	result string
	// installed: the server's view includes it (the client said it applied
	// it, or is silent); echoed: a didChange carried it.
	installed, echoed bool
}

// EchoWait bounds how long an edit waits for the echo of the one before it,
// so that it can name the client's version (a versioned edit is refused
// rather than misplaced when the user typed meanwhile). A client that does
// not echo in time — eglot blocked on a request of its own — gets the next
// edit unversioned, built on the text it said it has.
var EchoWait = durationFromEnv("CHATLS_ECHO_WAIT", time.Second)

// sendOwnLocked registers an edit about to be sent; the caller holds
// Session.mu.
func (ds *Doc) sendOwnLocked(doc *chatdoc.Document, edits []chatdoc.TextEdit, label string, build editBuilder, result string) *ownEdit {
	e := &ownEdit{built: doc, expected: applyTextEdits(doc, edits), edits: edits, label: label, build: build, result: result}
	if len(ds.own) == 0 {
		ds.echoed = make(chan struct{})
	}
	ds.own = append(ds.own, e)
	return e
}

// dropOwnLocked forgets edits the client did not apply (refused, or lost
// to the user's typing); the caller holds Session.mu.
func (ds *Doc) dropOwnLocked(drop func(*ownEdit) bool) {
	before := len(ds.own)
	ds.own = slices.DeleteFunc(ds.own, drop)
	if before > 0 && len(ds.own) == 0 {
		close(ds.echoed)
	}
}

// landed settles an edit the client said it applied (or a silent client
// got): true when it is in the server's view, false when it was lost — a
// change of the user's reached the server first and did not carry it (a
// client that checks versions refused it, Neovim 0.7 says "applied" and
// drops it); the writer then rebuilds on the newest text.
//
// echoed: the editor's text is now the edit's result and nothing will echo
// it (a file): the client's text moves on with the view.
func (s *Session) landed(ds *Doc, e *ownEdit, echoed bool) bool {
	s.mu.Lock()
	if e.echoed || e.installed {
		s.mu.Unlock()
		return true
	}
	if !slices.Contains(ds.own, e) || ds.snap != e.built {
		ds.dropOwnLocked(func(o *ownEdit) bool { return o == e })
		s.mu.Unlock()
		return false
	}
	wake := s.installLocked(ds, e)
	if echoed {
		e.echoed = true
		ds.base, ds.version = e.expected, ds.version+1
		ds.dropOwnLocked(func(o *ownEdit) bool { return o == e })
	}
	s.mu.Unlock()
	s.afterChange(ds, wake)
	return true
}

// installLocked moves the server's view to the edit's expected text, as
// the didChange echoing it would have: the stream's marker, the answers'
// lines and the ledger follow it. It returns whether the cycle should wake.
// The caller holds Session.mu.
func (s *Session) installLocked(ds *Doc, e *ownEdit) bool {
	old, next := ds.snap, e.expected
	e.installed = true
	// Later edits first, so each offset is still the built text's.
	sorted := slices.Clone(e.edits)
	slices.SortStableFunc(sorted, func(a, b chatdoc.TextEdit) int { return b.Span.Start - a.Span.Start })
	for _, te := range sorted {
		s.followLocked(ds, old, next, true, te.Span.Start, te.Span.End, len(te.NewText))
	}
	span := ownSpan(e.edits)
	return s.installSnapLocked(ds, old, next, span)
}

// installSnapLocked makes next the server's view; the caller holds
// Session.mu and has moved the offsets that follow changes.
func (s *Session) installSnapLocked(ds *Doc, old, next *chatdoc.Document, span chatdoc.Span) bool {
	ds.snap = next
	close(ds.changed)
	ds.changed = make(chan struct{})
	autopilot := s.settings.store.For(s.workspaceRootLocked(ds.path)).Autopilot
	return ds.ledger.Observe(old, next, span, autopilot)
}

// followLocked moves the offsets that follow the document — the stream's
// marker and the answers' lines — through a change of old [start, oldEnd)
// into inserted bytes. The caller holds Session.mu.
func (s *Session) followLocked(ds *Doc, old, next *chatdoc.Document, ranged bool, start, oldEnd, inserted int) {
	if ds.stream != nil {
		ds.stream.follow(old, next, ranged, start, oldEnd, inserted)
	}
	for _, a := range ds.answers {
		a.at = shift(a.at, start, oldEnd, inserted-(oldEnd-start))
	}
}

// afterChange is what follows a new view, outside Session.mu.
func (s *Session) afterChange(ds *Doc, wake bool) {
	s.scheduleDiagnostics(ds)
	if wake {
		ds.wake()
	}
}

// receiveLocked applies a didChange to the client's text and settles the
// server's own edits it carries. It returns whether the cycle should wake
// and whether the server's view changed; the caller holds Session.mu.
func (s *Session) receiveLocked(ds *Doc, changes []chatdoc.Change, version int32) (wake, changed bool, redo []*ownEdit) {
	cur, rest, from := ds.base, changes, ds.base
	for i := range changes {
		cur = cur.Apply(changes[i:i+1], s.enc)
		if k := ds.echoOf(cur); k >= 0 {
			for _, e := range ds.own[:k+1] {
				e.echoed = true
				if !e.installed && ds.snap == e.built {
					// The echo came before the reply (VS Code answers after its
					// didChange): the view moves now.
					wake = s.installLocked(ds, e) || wake
					changed = true
				}
			}
			cur = ds.own[k].expected // the same text, the server's snapshot
			ds.dropOwnLocked(func(o *ownEdit) bool { return o.echoed })
			rest, from = changes[i+1:], cur
		}
	}
	ds.base, ds.version = cur, version
	if len(rest) == 0 {
		return wake, changed, nil // only echoes: nothing new
	}
	old := ds.snap
	ranged := len(rest) == 1 && rest[0].Range != nil
	// The region is worked out only for offsets to move: for a whole text
	// it compares the two texts.
	follows := ds.stream != nil || len(ds.answers) > 0
	region := func(a, b *chatdoc.Document, ch []chatdoc.Change) {
		if follows {
			start, oldEnd, inserted := changedRegion(a, b, ch, s.enc)
			s.followLocked(ds, a, b, ranged, start, oldEnd, inserted)
		}
	}
	switch {
	case len(ds.own) == 0:
		region(old, cur, rest)
	case rest[len(rest)-1].Range == nil:
		// A whole text with the user's typing and the server's edits not
		// echoed one by one (ALE): it applied them all; the rest is the user's.
		ds.dropOwnLocked(func(*ownEdit) bool { return true })
		ranged = false
		region(old, cur, nil)
	default:
		// The user's change reached the client before the edits still
		// unechoed: the client has not applied them (a version check
		// refused them, or Neovim dropped them). The view goes back to the
		// client's text; their writers rebuild (landed says false, the
		// stream queues its text again).
		if ds.stream != nil {
			ds.stream.lost(ds.own)
		}
		for _, e := range ds.own {
			if e.installed {
				redo = append(redo, e) // its writer went on: build it again
				if e.result != "" {
					// Before the view goes back to the placeholder: the pass
					// this change wakes must leave the block to redo.
					ds.beginRewrite(e.result)
				}
			}
		}
		ds.dropOwnLocked(func(*ownEdit) bool { return true })
		old = from
		region(from, cur, rest)
	}
	span := cycle.ChangedSpan(old, cur, rest, s.enc)
	if old != ds.snap {
		span = chatdoc.Span{Start: 0, End: cur.Len()}
	}
	prev := ds.snap
	wake = s.installSnapLocked(ds, prev, cur, span) || wake
	return wake, true, redo
}

// redo writes again the edits a client turned out not to have, each with
// its own builder (which writes nothing when the work is done). A result's
// write ends as writeResult's does: the block is free, the cycle wakes.
func (s *Session) redo(ds *Doc, lost []*ownEdit) {
	for _, e := range lost {
		s.tasks.Add(1)
		go func() {
			defer s.tasks.Done()
			s.editDocumentAs(ds, e.label, e.build, nil, e.result)
			if e.result != "" {
				s.mu.Lock()
				ds.endRewrite(e.result)
				s.mu.Unlock()
				ds.wake()
			}
		}()
	}
}

// echoOf is the index of the newest own edit whose expected text cur is,
// or -1. A whole-text change can echo several at once.
func (ds *Doc) echoOf(cur *chatdoc.Document) int {
	for k := len(ds.own) - 1; k >= 0; k-- {
		if chatdoc.SameText(cur, ds.own[k].expected) {
			return k
		}
	}
	return -1
}

// applyTextEdits is doc with edits (non-overlapping, on doc's offsets)
// applied, later ones first so that earlier offsets stay valid.
func applyTextEdits(doc *chatdoc.Document, edits []chatdoc.TextEdit) *chatdoc.Document {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b chatdoc.TextEdit) int { return b.Span.Start - a.Span.Start })
	for _, e := range sorted {
		doc = doc.Replace(e.Span, e.NewText)
	}
	return doc
}

// ownSpan covers the text the edits wrote, in the text after them.
func ownSpan(edits []chatdoc.TextEdit) chatdoc.Span {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b chatdoc.TextEdit) int { return a.Span.Start - b.Span.Start })
	delta, span := 0, chatdoc.Span{Start: -1}
	for _, e := range sorted {
		start := e.Span.Start + delta
		end := start + len(e.NewText)
		if span.Start < 0 {
			span.Start = start
		}
		span.End = end
		delta += len(e.NewText) - e.Span.Len()
	}
	if span.Start < 0 {
		span.Start = 0
	}
	return span
}
