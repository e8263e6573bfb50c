package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/session"
)

// Every message chatls sends to the client goes through this file, and a
// request is only sent when the client advertised it (STYLE.md
// "Capability-gated calls"): eglot 1.9 has no progress UI, most clients no
// refresh requests. workspace/applyEdit is the exception: Vim's ALE
// applies edits without advertising them (writeback.go copes).

// clientCallTimeout bounds every request to the client: an editor that never
// answers must not hang the server.
const clientCallTimeout = 5 * time.Second

// errNotSupported is returned for a request the client did not advertise.
var errNotSupported = errors.New("the client does not support this request")

// clientFeatures are the client capabilities chatls acts on.
type clientFeatures struct {
	documentChanges  bool // versioned TextDocumentEdits in workspace edits
	workDoneProgress bool // window/workDoneProgress/create and $/progress
	inlayHintRefresh bool
	codeLensRefresh  bool
	configuration    bool // workspace/configuration (pull)
}

func featuresOf(caps lspext.ClientCapabilities) clientFeatures {
	var f clientFeatures
	if ws := caps.Workspace; ws != nil {
		f.documentChanges = ws.WorkspaceEdit != nil && ws.WorkspaceEdit.DocumentChanges
		f.inlayHintRefresh = ws.InlayHint != nil && ws.InlayHint.RefreshSupport
		f.codeLensRefresh = ws.CodeLens != nil && ws.CodeLens.RefreshSupport
		f.configuration = ws.Configuration
	}
	f.workDoneProgress = caps.Window != nil && caps.Window.WorkDoneProgress
	return f
}

// features is what the client advertised in initialize.
func (s *Server) features() clientFeatures {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// notify sends a notification to the client, logging failures.
func (s *Server) notify(method string, params any) {
	conn := s.rpc()
	if conn == nil {
		return
	}
	if err := conn.Notify(s.baseCtx, method, params); err != nil {
		s.log.Debug("notify failed", zap.String("method", method), zap.Error(err))
	}
}

// call sends a request to the client and waits at most timeout for the reply.
func (s *Server) call(method string, params, result any, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(s.baseCtx, timeout)
	defer cancel()
	conn := s.rpc()
	if conn == nil {
		return errors.New("not connected")
	}
	var raw json.RawMessage
	if err := conn.Call(ctx, method, params, &raw); err != nil {
		return err
	}
	if result != nil && len(raw) > 0 {
		return json.Unmarshal(raw, result)
	}
	return nil
}

// showMessage tells the user something in the editor's UI (and the log).
func (s *Server) showMessage(kind int, text string) {
	// A reason that already names chatls is not prefixed twice.
	for strings.HasPrefix(text, "chatls: chatls: ") {
		text = strings.TrimPrefix(text, "chatls: ")
	}
	s.log.Info("showMessage: " + text)
	go s.notify("window/showMessage", lspext.ShowMessageParams{Type: kind, Message: text})
}

// publishDiagnostics replaces the document's diagnostics (never null).
func (s *Server) publishDiagnostics(uri string, version *int32, diags []lspext.Diagnostic) {
	s.notify("textDocument/publishDiagnostics", lspext.NewPublishDiagnostics(uri, version, diags))
}

// refreshHints asks the client to re-request inlay hints (and code lenses),
// where it advertised refresh support. Refreshes are requests, and
// inlay-hint ones coalesce: one in flight at a time.
func (s *Server) refreshHints() {
	f := s.features()
	if s.rpc() == nil {
		return
	}
	if f.inlayHintRefresh && s.refreshBusy.CompareAndSwap(false, true) {
		go func() {
			defer s.refreshBusy.Store(false)
			_ = s.call("workspace/inlayHint/refresh", nil, nil, clientCallTimeout)
		}()
	}
	if f.codeLensRefresh {
		go func() { _ = s.call("workspace/codeLens/refresh", nil, nil, clientCallTimeout) }()
	}
}

// createProgress creates a work-done progress token in the client.
func (s *Server) createProgress(token string) error {
	if !s.features().workDoneProgress {
		return errNotSupported
	}
	return s.call("window/workDoneProgress/create", lspext.WorkDoneProgressCreateParams{Token: token}, nil, clientCallTimeout)
}

// progress sends one $/progress value for a token createProgress made.
func (s *Server) progress(token string, value map[string]any) {
	s.notify("$/progress", &lspext.ProgressParams{Token: token, Value: value})
}

// pullConfiguration asks the client for section "chatls"; ok is false when
// the client does not support it, fails, or has none.
func (s *Server) pullConfiguration() (json.RawMessage, bool) {
	if !s.features().configuration {
		return nil, false
	}
	var result []json.RawMessage
	params := lspext.ConfigurationParams{Items: []lspext.ConfigurationItem{{Section: "chatls"}}}
	if err := s.call("workspace/configuration", params, &result, clientCallTimeout); err != nil {
		s.log.Debug("workspace/configuration failed", zap.Error(err))
		return nil, false
	}
	if len(result) == 0 || string(result[0]) == "null" {
		return nil, false
	}
	return result[0], true
}

// applyReply is the client's answer to workspace/applyEdit, or why none came.
type applyReply struct {
	lspext.ApplyWorkspaceEditResult
	err error
}

// applyEdit sends workspace/applyEdit and returns without waiting for the
// reply. The request is on the wire when it returns: edits reach the client
// in the order they were made. A silent client (Vim's ALE) gets the next
// edit right after this one, built on this one's result; sent from a
// goroutine each, two such edits could cross on the way (ALE applied the
// second first and put the answer's text on a line of its own).
func (s *Server) applyEdit(params lspext.ApplyWorkspaceEditParams) <-chan applyReply {
	out := make(chan applyReply, 1)
	timeout := session.EditReplyTimeout
	if s.answered.Load() {
		timeout = max(timeout, session.SlowReplyTimeout) // it answers: a late answer is a busy editor
	}
	conn := s.rpc()
	if conn == nil {
		out <- applyReply{err: errors.New("not connected")}
		return out
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, timeout)
	wait, err := conn.DispatchCall(ctx, "workspace/applyEdit", params)
	if err != nil {
		cancel()
		out <- applyReply{err: err}
		return out
	}
	go func() {
		defer cancel()
		var res lspext.ApplyWorkspaceEditResult
		err := wait.Wait(ctx, &res)
		if err == nil {
			s.answered.Store(true)
		}
		out <- applyReply{ApplyWorkspaceEditResult: res, err: err}
	}()
	return out
}
