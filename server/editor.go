package server

import (
	"context"
	"errors"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/session"
)

// lspEditor is the session's Editor over the LSP connection. A client may
// refuse an edit (the user typed), apply it without answering (Vim's ALE
// advertises no applyEdit and never answers), or answer late (VS Code on a
// busy machine): a silent client's edits count as applied when sent, its
// next text decides.
type lspEditor struct{ s *Server }

// MethodStatus is the server's notification of a document's status
// (session.Notice), sent whenever its text changes (docs/editors.md "Status").
const MethodStatus = "chatls/status"

func (e lspEditor) ApplyEdit(req session.EditRequest) <-chan session.EditReply {
	s := e.s
	params := lspext.ApplyWorkspaceEditParams{Label: req.Label, Edit: s.requestEdit(req)}
	out := make(chan session.EditReply, 1)
	reply := s.applyEdit(params)
	if s.silent.Load() {
		go func() { <-reply }() // its answer, should one come, changes nothing
		out <- session.EditReply{Applied: true}
		return out
	}
	go func() {
		res := <-reply
		switch {
		case res.err == nil:
			out <- session.EditReply{Applied: res.Applied, Reason: res.FailureReason}
		case errors.Is(res.err, context.DeadlineExceeded):
			// No answer: this client applies edits without saying so. From
			// now on nothing waits for its answers.
			s.log.Warn("no reply to workspace/applyEdit; treating the client as one that applies edits silently")
			if s.answered.Load() {
				s.showMessage(lspext.MessageWarning, "chatls: the editor has not answered an edit for "+session.SlowReplyTimeout.String()+"; chatls goes on without waiting for its answers (reopen the file if the answer looks wrong)")
			}
			s.silent.Store(true)
			out <- session.EditReply{Applied: true}
		default:
			out <- session.EditReply{Err: res.err}
		}
	}()
	return out
}

func (e lspEditor) Echoes() bool { return !e.s.silent.Load() }

func (e lspEditor) ShowMessage(level session.MessageLevel, text string) {
	e.s.showMessage(int(level), text)
}

func (e lspEditor) RefreshHints() { e.s.refreshHints() }

func (e lspEditor) CreateProgress(token string) error { return e.s.createProgress(token) }

func (e lspEditor) Progress(token string, value map[string]any) { e.s.progress(token, value) }

// Changed publishes the document's diagnostics and, when it changed, its
// status line.
func (e lspEditor) Changed(d *session.Doc) {
	s := e.s
	doc, version := s.sess.Snapshot(d)
	enc := s.encoding()
	diags := s.sess.Diagnostics(d, doc, true)
	out := make([]lspext.Diagnostic, 0, len(diags))
	for _, dg := range diags {
		out = append(out, lspDiagnostic(doc, dg, enc))
	}
	s.publishDiagnostics(d.URI(), &version, out)
	notice := s.sess.Notice(d)
	v := s.view(d.URI())
	s.mu.Lock()
	if v.lastStatus == notice.Text || s.sess.Doc(d.URI()) != d {
		s.mu.Unlock()
		return
	}
	v.lastStatus = notice.Text
	s.mu.Unlock()
	s.notify(MethodStatus, notice)
}

// workspaceEdit is a versioned TextDocumentEdit for the snapshot the edits
// were built on, or plain changes for clients without documentChanges and
// for an edit whose version the server does not know (Neovim 0.7 cannot
// take a null version).
func (s *Server) workspaceEdit(uri string, version int32, versioned bool, doc *chatdoc.Document, edits []chatdoc.TextEdit) lspext.WorkspaceEdit {
	return s.requestEdit(session.EditRequest{URI: uri, Version: version, Versioned: versioned, Doc: doc, Edits: edits})
}

// requestEdit is the workspace edit of a session's edit: the document's
// and those of other open files, all versioned or (a client without
// documentChanges, a version the server does not know) all plain changes,
// since a client that has documentChanges ignores changes.
func (s *Server) requestEdit(req session.EditRequest) lspext.WorkspaceEdit {
	enc := s.encoding()
	parts := req.Files
	versioned := req.Versioned && s.features().documentChanges
	if req.URI != "" {
		parts = append([]session.FileEdit{{URI: req.URI, Version: req.Version, Doc: req.Doc, Edits: req.Edits}}, parts...)
	} else {
		versioned = s.features().documentChanges
	}
	var out lspext.WorkspaceEdit
	for _, p := range parts {
		wire := lspEdits(p.Doc, p.Edits, enc)
		if versioned {
			out.DocumentChanges = append(out.DocumentChanges, lspext.TextDocumentEdit{
				TextDocument: lspext.VersionedTextDocumentIdentifier{URI: p.URI, Version: p.Version}, Edits: wire})
			continue
		}
		if out.Changes == nil {
			out.Changes = map[string][]lspext.TextEdit{}
		}
		out.Changes[p.URI] = append(out.Changes[p.URI], wire...)
	}
	return out
}

func (s *Server) encoding() chatdoc.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// codeRequestFailed is LSP's RequestFailed: the session's refusals.
const codeRequestFailed = -32803

// refusal is a session's refusal as LSP's RequestFailed, a request it
// cannot carry out as InvalidParams.
func refusal(err error) error {
	var refused *session.RefusedError
	if errors.As(err, &refused) {
		return &jsonrpc2.Error{Code: codeRequestFailed, Message: refused.Reason}
	}
	var bad *session.BadRequestError
	if errors.As(err, &bad) {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "invalid params: " + bad.Reason}
	}
	return err
}
