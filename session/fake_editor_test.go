package session

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

// fakeEditor is an Editor with buffers of its own that behaves as real
// clients do: it may refuse an edit (a version check after the user typed),
// answer late, answer before or after it echoes the edit, and echo it as a
// ranged change (VS Code, Neovim) or as the whole text (Vim's ALE).
type fakeEditor struct {
	s *Session

	mu       sync.Mutex
	bufs     map[string]*chatdoc.Document
	versions map[string]int32
	// changed is closed and replaced on every change of a buffer.
	changed  chan struct{}
	messages []string
	applied  int
	requests []EditRequest // the applied edits, in order
	// edits are the edits the editor was asked for, in order.
	edits []EditRequest

	// refuse, when set, says which edits the editor refuses.
	refuse func(EditRequest) bool
	// drop, when set, says which edits the editor answers "applied" and
	// drops (Neovim 0.7 with a change of the user's in between).
	drop func(EditRequest) bool
	// delay, when set, is how long the editor takes to answer an edit.
	delay func() time.Duration
	// wholeText echoes every edit as the whole text; replyFirst answers
	// before echoing (Neovim) instead of after (VS Code).
	wholeText, replyFirst bool
}

func newFakeEditor() *fakeEditor {
	return &fakeEditor{bufs: map[string]*chatdoc.Document{}, versions: map[string]int32{}, changed: make(chan struct{})}
}

func (e *fakeEditor) ApplyEdit(req EditRequest) <-chan EditReply {
	out := make(chan EditReply, 1)
	go func() {
		if e.delay != nil {
			time.Sleep(e.delay()) // the client's latency, not a wait of the test
		}
		e.mu.Lock()
		e.edits = append(e.edits, req)
		if e.drop != nil && e.drop(req) {
			e.notifyLocked()
			e.mu.Unlock()
			out <- EditReply{Applied: true}
			return
		}
		// The document's edit and those of other files, all or nothing, as
		// VS Code applies a versioned workspace edit.
		parts := req.Files
		if req.URI != "" {
			parts = append([]FileEdit{{URI: req.URI, Version: req.Version, Doc: req.Doc, Edits: req.Edits}}, parts...)
		}
		for i, p := range parts {
			buf, version := e.bufs[p.URI], e.versions[p.URI]
			versioned := i > 0 || req.URI == "" || req.Versioned
			if buf == nil || (e.refuse != nil && e.refuse(req)) || versioned && version != p.Version {
				e.mu.Unlock()
				out <- EditReply{Reason: "the document changed"}
				return
			}
		}
		type echo struct {
			uri     string
			changes []chatdoc.Change
			version int32
			file    bool
		}
		var echoes []echo
		for i, p := range parts {
			buf, version := e.bufs[p.URI], e.versions[p.URI]
			// Positions, as on the wire, counted in the text the edit was
			// built on; applied to the buffer as it is, as an editor does.
			enc := e.s.Encoding()
			changes := make([]chatdoc.Change, 0, len(p.Edits))
			sorted := slices.Clone(p.Edits)
			// Later edits first: earlier positions stay valid.
			slices.SortStableFunc(sorted, func(a, b chatdoc.TextEdit) int { return b.Span.Start - a.Span.Start })
			for _, te := range sorted {
				r := chatdoc.Range{Start: p.Doc.Lines.Position(te.Span.Start, enc), End: p.Doc.Lines.Position(te.Span.End, enc)}
				changes = append(changes, chatdoc.Change{Range: &r, Text: te.NewText})
			}
			next := buf.Apply(changes, enc)
			e.bufs[p.URI], e.versions[p.URI] = next, version+1
			if e.wholeText {
				changes = []chatdoc.Change{{Text: next.Text()}}
			}
			echoes = append(echoes, echo{p.URI, changes, version + 1, i > 0 || req.URI == ""})
		}
		e.applied++
		e.requests = append(e.requests, req)
		e.notifyLocked()
		e.mu.Unlock()
		send := func() {
			for _, ec := range echoes {
				if ec.file {
					e.s.ChangeFile(ec.uri, ec.changes, ec.version)
				} else {
					e.s.Change(ec.uri, ec.changes, ec.version)
				}
			}
		}
		if e.replyFirst {
			out <- EditReply{Applied: true}
			send()
			return
		}
		send()
		out <- EditReply{Applied: true}
	}()
	return out
}

func (e *fakeEditor) Echoes() bool { return true }

func (e *fakeEditor) ShowMessage(_ MessageLevel, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, text)
	e.notifyLocked()
}

func (e *fakeEditor) Changed(*Doc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.notifyLocked()
}

func (e *fakeEditor) RefreshHints()                   {}
func (e *fakeEditor) CreateProgress(string) error     { return nil }
func (e *fakeEditor) Progress(string, map[string]any) {}
func (e *fakeEditor) notifyLocked()                   { close(e.changed); e.changed = make(chan struct{}) }
func (e *fakeEditor) texts() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]string{}
	for uri, d := range e.bufs {
		out[uri] = d.Text()
	}
	return out
}
func (e *fakeEditor) text(uri string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.bufs[uri].Text()
}
func (e *fakeEditor) open(uri string, doc *chatdoc.Document) { e.bufs[uri], e.versions[uri] = doc, 1 }

// typeText is the user's edit: the first old in the buffer becomes new.
func (e *fakeEditor) typeText(t *testing.T, uri, old, new string) {
	t.Helper()
	e.typeAt(t, uri, old, new, strings.Index)
}

// typeAtEnd is the user's edit of the last old in the buffer.
func (e *fakeEditor) typeAtEnd(t *testing.T, uri, old, new string) {
	t.Helper()
	e.typeAt(t, uri, old, new, strings.LastIndex)
}

func (e *fakeEditor) typeAt(t *testing.T, uri, old, new string, find func(s, sub string) int) {
	t.Helper()
	e.mu.Lock()
	buf := e.bufs[uri]
	at := find(buf.Text(), old)
	if at < 0 {
		e.mu.Unlock()
		t.Fatalf("%q is not in the buffer:\n%s", old, buf.Text())
	}
	enc := e.s.Encoding()
	r := chatdoc.Range{Start: buf.Lines.Position(at, enc), End: buf.Lines.Position(at+len(old), enc)}
	change := []chatdoc.Change{{Range: &r, Text: new}}
	e.bufs[uri] = buf.Apply(change, enc)
	e.versions[uri]++
	version := e.versions[uri]
	e.notifyLocked()
	e.mu.Unlock()
	if !e.s.Change(uri, change, version) {
		e.s.ChangeFile(uri, change, version)
	}
}

// waitFor waits until cond holds, re-checking on every change the editor
// sees; it fails the test after 20 s, saying what it waited for.
func (e *fakeEditor) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	// A condition may also read the session's state (Status().Sending),
	// which can change after the editor's last change with nothing for the
	// editor to see: it is looked at again now and then, too (under load
	// the send's end used to come after the last edit, and the wait hung).
	recheck := time.NewTicker(50 * time.Millisecond)
	defer recheck.Stop()
	for {
		e.mu.Lock()
		changed := e.changed
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-recheck.C:
		case <-deadline:
			t.Fatalf("waited 20 s for %s; the editor's texts: %q", what, e.texts())
		}
	}
}

// waitText waits until the buffer holds every sub.
func (e *fakeEditor) waitText(t *testing.T, uri string, subs ...string) {
	t.Helper()
	e.waitFor(t, "the text "+strings.Join(subs, " + "), func() bool {
		text := e.text(uri)
		for _, sub := range subs {
			if !strings.Contains(text, sub) {
				return false
			}
		}
		return true
	})
}
