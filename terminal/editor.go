// Package terminal is `chatls send FILE`: the session (package session) run
// in process on a file, with the file as its editor (SPEC §7 "The terminal
// is a full client").
package terminal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/docfile"
	"github.com/chatls/chatls/session"
)

// fileEditor is the session's Editor for FILE. Every edit is written at
// once, atomically (temp file + rename), and it is its own echo: the file
// holds exactly the session's text after it. An edit another program made
// to FILE since the last write is handed to the session first, as an
// editor hands over the user's typing, and the edit is refused so the
// session builds it again on the new text (the answer goes on at its
// anchor).
type fileEditor struct {
	path string
	uri  string
	sess *session.Session
	out  io.Writer // where messages go (stderr)

	mu sync.Mutex
	// written is FILE's text as chatls last wrote or read it; stat the
	// file's state then, to notice another program's write.
	written string
	stat    os.FileInfo
	version int32
	// changed is closed and replaced whenever something happened that may
	// move the agent on: an edit, a new status, a message.
	changed chan struct{}
	// failed is the first write that failed (a full disk): the command
	// ends with it and FILE keeps what it had.
	failed error
	// shown are the messages already printed, so the last line does not
	// repeat one.
	shown map[string]bool
}

func newFileEditor(path, uri, text string, stat os.FileInfo, out io.Writer) *fileEditor {
	return &fileEditor{path: path, uri: uri, written: text, stat: stat, version: 1, out: out,
		changed: make(chan struct{}), shown: map[string]bool{}}
}

func (e *fileEditor) ApplyEdit(req session.EditRequest) <-chan session.EditReply {
	reply := make(chan session.EditReply, 1)
	reply <- e.apply(req)
	return reply
}

func (e *fileEditor) apply(req session.EditRequest) session.EditReply {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.notifyLocked()
	if e.failed != nil {
		return session.EditReply{Err: e.failed}
	}
	if took, err := e.takeExternalLocked(); err != nil || took {
		return session.EditReply{Reason: "FILE changed on disk", Err: err}
	}
	if req.Doc.Text() != e.written {
		// Cannot happen while every edit is its own echo; should it, the
		// session is given FILE's whole text and builds the edit again.
		e.version++
		e.sess.Change(e.uri, []chatdoc.Change{{Text: e.written}}, e.version)
		return session.EditReply{Reason: "the session's text is not FILE's"}
	}
	text := chatdoc.ApplyEdits(req.Doc.Text(), req.Edits)
	stat, err := docfile.WriteUnlessChanged(e.path, []byte(text), e.changedOnDiskLocked)
	if errors.Is(err, docfile.ErrChangedMeanwhile) {
		// Another program wrote FILE while this text was flushed: its edit
		// goes to the session and this one is built again.
		if _, err := e.takeExternalLocked(); err != nil {
			return session.EditReply{Err: err}
		}
		return session.EditReply{Reason: "FILE changed while it was written"}
	}
	if err != nil {
		// "writing FILE: …: no space left on device (the file is unchanged)"
		e.failed = fmt.Errorf("%w; make room and run chatls send again", err)
		return session.EditReply{Err: e.failed}
	}
	e.written, e.stat = text, stat
	e.version++
	return session.EditReply{Applied: true, Echoed: true}
}

// takeExternalLocked hands the session another program's edit of FILE,
// and reports whether there was one.
func (e *fileEditor) takeExternalLocked() (bool, error) {
	if !e.changedOnDiskLocked() {
		return false, nil
	}
	fi, data, err := readSettled(e.path)
	if err != nil {
		return false, err
	}
	e.stat = fi
	disk := string(data)
	if disk == e.written {
		return false, nil
	}
	e.handOverLocked(disk)
	return true, nil
}

// settleFor is how long FILE must stay as it was read before another
// program's write counts as done: a program that writes in place
// (os.WriteFile, some editors) truncates first, and half a write taken for
// the user's edit would move the answer's anchor to the top.
const settleFor = 20 * time.Millisecond

// readSettled reads FILE once another program's write is done: its state
// is the same settleFor after the read as before it (at most a second of
// trying; then what is there counts).
func readSettled(path string) (os.FileInfo, []byte, error) {
	for try := 0; ; try++ {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, nil, err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		// No event says another process finished writing: look again.
		time.Sleep(settleFor)
		again, err := os.Stat(path)
		if err != nil {
			return nil, nil, err
		}
		if sameState(fi, again) && int64(len(data)) == fi.Size() || try == 50 {
			return fi, data, nil
		}
	}
}

// sameState says two stats describe the same content of one file.
func sameState(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// handOverLocked gives the session FILE's text disk as one change of what
// it last had: the region where the two differ.
func (e *fileEditor) handOverLocked(disk string) {
	old := chatdoc.Parse(e.written)
	start, oldEnd, newEnd := commonEnds(e.written, disk)
	enc := chatdoc.UTF8
	r := chatdoc.Range{Start: old.Lines.Position(start, enc), End: old.Lines.Position(oldEnd, enc)}
	e.written = disk
	e.version++
	// Change only takes the session's lock, never this editor's: no
	// edit of the session can be waiting on it here.
	e.sess.Change(e.uri, []chatdoc.Change{{Range: &r, Text: disk[start:newEnd]}}, e.version)
}

// changedOnDiskLocked says whether FILE is no longer what chatls last
// wrote or read (another program wrote it since).
func (e *fileEditor) changedOnDiskLocked() bool {
	fi, err := os.Stat(e.path)
	if err != nil || e.stat == nil {
		return false
	}
	return !sameState(fi, e.stat)
}

// sync takes in an edit another program made while nothing was written
// (at the end, while a tool runs).
func (e *fileEditor) sync() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, err := e.takeExternalLocked()
	return err
}

func (e *fileEditor) Echoes() bool { return false }

// ShowMessage prints what the session tells the user, once each.
func (e *fileEditor) ShowMessage(level session.MessageLevel, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.notifyLocked()
	if level == session.MessageLog || e.shown[text] {
		return
	}
	e.shown[text] = true
	if !strings.HasPrefix(text, "chatls: ") {
		text = "chatls: " + text
	}
	fmt.Fprintln(e.out, strings.Replace(text, "chatls: ", "chatls send: ", 1))
}

// printed says whether the message was printed already.
func (e *fileEditor) printed(text string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.shown[text] || e.shown["chatls: "+text]
}

func (e *fileEditor) Changed(*session.Doc) { e.notify() }
func (e *fileEditor) RefreshHints()        { e.notify() }

// A terminal has no progress UI: the status that moves says enough.
func (e *fileEditor) CreateProgress(string) error     { return errors.New("no progress UI in a terminal") }
func (e *fileEditor) Progress(string, map[string]any) {}

func (e *fileEditor) notify() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.notifyLocked()
}

func (e *fileEditor) notifyLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// next is closed when something happens after this call.
func (e *fileEditor) next() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.changed
}

// failure is the write that failed, or nil.
func (e *fileEditor) failure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failed
}

// text is FILE's text as chatls last wrote or read it.
func (e *fileEditor) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.written
}

// commonEnds is where a and b differ: a[start:oldEnd] became b[start:newEnd].
func commonEnds(a, b string) (start, oldEnd, newEnd int) {
	for start < len(a) && start < len(b) && a[start] == b[start] {
		start++
	}
	s := 0
	for s < len(a)-start && s < len(b)-start && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return start, len(a) - s, len(b) - s
}
