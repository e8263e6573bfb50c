package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/session"
)

// demoEditor is the editor of chatls demo: one buffer that takes every
// edit of the session at once and remembers it, to print it as a diff.
type demoEditor struct {
	sess *session.Session
	uri  string

	mu      sync.Mutex
	text    string
	version int32
	edits   []demoEdit
	changed chan struct{}
}

type demoEdit struct{ label, before, after string }

func newDemoEditor(uri, text string) *demoEditor {
	return &demoEditor{uri: uri, text: text, version: 1, changed: make(chan struct{})}
}

func (e *demoEditor) ApplyEdit(req session.EditRequest) <-chan session.EditReply {
	reply := make(chan session.EditReply, 1)
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.notifyLocked()
	if req.Doc.Text() != e.text {
		reply <- session.EditReply{Reason: "the demo's buffer changed"}
		return reply
	}
	after := chatdoc.ApplyEdits(e.text, req.Edits)
	e.edits = append(e.edits, demoEdit{label: req.Label, before: e.text, after: after})
	e.text = after
	e.version++
	reply <- session.EditReply{Applied: true, Echoed: true}
	return reply
}

// typeText is the user's edit in the demo: the first old becomes new.
func (e *demoEditor) typeText(old, new string) error {
	e.mu.Lock()
	at := strings.Index(e.text, old)
	if at < 0 {
		e.mu.Unlock()
		return fmt.Errorf("%q is not in the document", old)
	}
	doc := chatdoc.Parse(e.text)
	r := chatdoc.Range{Start: doc.Lines.Position(at, chatdoc.UTF8), End: doc.Lines.Position(at+len(old), chatdoc.UTF8)}
	e.text = e.text[:at] + new + e.text[at+len(old):]
	e.version++
	version := e.version
	e.notifyLocked()
	e.mu.Unlock()
	e.sess.Change(e.uri, []chatdoc.Change{{Range: &r, Text: new}}, version)
	return nil
}

// waitFor waits until cond holds of the buffer, at most d.
func (e *demoEditor) waitFor(d time.Duration, what string, cond func(text string) bool) error {
	deadline := time.After(d)
	for {
		e.mu.Lock()
		text, changed := e.text, e.changed
		e.mu.Unlock()
		if cond(text) {
			return nil
		}
		select {
		case <-changed:
		case <-deadline:
			return fmt.Errorf("waited %s for %s", d, what)
		}
	}
}

// printEdits shows the edits since index from as unified diffs and
// returns how many there are now.
func (e *demoEditor) printEdits(out io.Writer, from int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ed := range e.edits[from:] {
		fmt.Fprintf(out, "   chatls edit %q:\n", ed.label)
		diff := udiff.Unified("before", "after", ed.before, ed.after)
		for _, line := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
			fmt.Fprintf(out, "   | %s\n", line)
		}
	}
	return len(e.edits)
}

func (e *demoEditor) editCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.edits)
}

func (e *demoEditor) current() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.text
}

func (e *demoEditor) notifyLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *demoEditor) Echoes() bool                                 { return false }
func (e *demoEditor) ShowMessage(_ session.MessageLevel, _ string) {}
func (e *demoEditor) Changed(*session.Doc)                         {}
func (e *demoEditor) RefreshHints()                                {}
func (e *demoEditor) CreateProgress(string) error                  { return errors.New("no progress UI") }
func (e *demoEditor) Progress(string, map[string]any)              {}
