package session

import (
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/workdone"
)

// Editor is what a session needs from whoever shows its documents: an LSP
// client (package server) or a file in a terminal (chatls send). It
// carries out; the session decides.
type Editor interface {
	// ApplyEdit asks the editor to apply edits built on req.Doc, its text
	// at req.Version, and answers on the channel once it knows.
	ApplyEdit(req EditRequest) <-chan EditReply
	// Echoes says whether the editor tells the session the text after
	// each edit (a didChange): the next edit then waits for it, so it can
	// name the version. A silent client, or a file, does not.
	Echoes() bool
	// ShowMessage tells the user something.
	ShowMessage(level MessageLevel, text string)
	// Changed says a document's state changed (debounced): its
	// diagnostics and status are due.
	Changed(d *Doc)
	// RefreshHints says that hints and lenses changed without a new text
	// (a call's elapsed time, a new answer's usage).
	RefreshHints()
	// The progress of long work (a request, a running call).
	workdone.Client
}

// EditRequest is one edit of the session's.
type EditRequest struct {
	URI string
	// Version is the editor's version of Doc; Versioned says the editor
	// has echoed every earlier edit, so the version is exact.
	Version   int32
	Versioned bool
	Doc       *chatdoc.Document
	Edits     []chatdoc.TextEdit
	// Label names the edit for an editor's undo list ("" for the edits of
	// a streaming answer: Neovim prints every label).
	Label string
	// Files are edits of other open files that go in the same workspace
	// edit (a rewind's restores, SPEC §10). An edit of files only has no
	// URI.
	Files []FileEdit
}

// FileEdit is an edit of an open file that is not a conversation, built
// on its text at the editor's Version.
type FileEdit struct {
	URI     string
	Version int32
	Doc     *chatdoc.Document
	Edits   []chatdoc.TextEdit
}

// EditReply is the editor's answer to an edit.
type EditReply struct {
	// Applied: the editor has the edit. A reply that came late or not at
	// all from a client that applies without answering counts as applied
	// too: the next text the editor sends decides.
	Applied bool
	// Echoed: the editor's text is now exactly the edit's result and no
	// didChange will say so (a file written by chatls send).
	Echoed bool
	// Reason is why an edit was refused; Err why no answer came.
	Reason string
	Err    error
}

// MessageLevel is how serious a message is (LSP's MessageType values).
type MessageLevel int

// Message levels.
const (
	MessageError   MessageLevel = 1
	MessageWarning MessageLevel = 2
	MessageInfo    MessageLevel = 3
	MessageLog     MessageLevel = 4
)

// RefusedError is a refusal of the session's (a send that cannot start,
// say): what the user reads, already shown to them.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }
