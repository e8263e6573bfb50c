package server

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"
)

// Error codes beyond the JSON-RPC ones.
const (
	codeServerNotInitialized int64 = -32002
	codeRequestCancelled     int64 = -32800
)

// Handle is called by jsonrpc2 on its read loop, one message at a time
// (STYLE.md "Ordered dispatch"). Notifications that change documents are
// applied here, in order, and are cheap. Requests run in goroutines on the
// snapshot captured now, so a later didChange cannot overtake an earlier
// request and a slow request cannot block the stream. Nothing here may call
// the client and wait: the reply could only arrive through this same loop.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s.conn.CompareAndSwap(nil, conn)
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in handler", zap.String("method", req.Method), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
			if !req.Notif {
				_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", req.Method, p)})
			}
		}
	}()
	req.Params = s.frames.Load().Unstash(req.Params) // before any early return: every stashed frame is taken once
	s.mu.Lock()
	ready, down := s.initialized, s.shuttingDown
	s.mu.Unlock()
	if req.Notif {
		if (down || !ready) && req.Method != "exit" {
			// Before initialize and after shutdown only exit counts (LSP).
			s.log.Debug("notification dropped outside the session", zap.String("method", req.Method))
			return
		}
		s.handleNotification(req)
		return
	}
	switch {
	case down:
		_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "the server is shutting down: only the exit notification is accepted"})
		return
	case req.Method == "initialize":
		// Synchronous: nothing else may run before capabilities are known.
		s.reply(ctx, req, func() (any, error) { return s.initialize(req.Params) })
		return
	case !ready:
		_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: codeServerNotInitialized, Message: "the server is not initialized: send initialize first"})
		return
	case req.Method == "shutdown":
		s.reply(ctx, req, func() (any, error) { return s.shutdown() })
		return
	}
	handler, ok := s.handlers[req.Method]
	if !ok {
		_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported by chatls: " + req.Method})
		return
	}
	snap := s.captureSnapshot(req.Params)
	reqCtx, cancel := context.WithCancel(s.baseCtx)
	key := req.ID.String()
	s.mu.Lock()
	s.cancels[key] = cancel
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.cancels, key)
			s.mu.Unlock()
			cancel()
		}()
		s.reply(reqCtx, req, func() (any, error) { return handler(s, reqCtx, req.Params, snap) })
	}()
}

// reply runs fn, recovering panics, and answers the request. A cancelled
// request gets RequestCancelled (-32800).
func (s *Server) reply(ctx context.Context, req *jsonrpc2.Request, fn func() (any, error)) {
	var result any
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic in request", zap.String("method", req.Method), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
				err = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", req.Method, p)}
			}
		}()
		result, err = fn()
	}()
	if ctx.Err() != nil && err == nil && result == nil {
		err = &jsonrpc2.Error{Code: codeRequestCancelled, Message: "request cancelled"}
	}
	if err != nil && ctx.Err() != nil {
		// Whatever failed, the reason is the cancellation (LSP -32800).
		err = &jsonrpc2.Error{Code: codeRequestCancelled, Message: "request cancelled"}
	}
	if err != nil {
		err = refusal(err)
		rpcErr, ok := err.(*jsonrpc2.Error)
		if !ok {
			rpcErr = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
			if ctx.Err() != nil {
				rpcErr.Code = codeRequestCancelled
			}
		}
		if e := s.rpc().ReplyWithError(context.Background(), req.ID, rpcErr); e != nil {
			s.log.Debug("reply failed", zap.Error(e))
		}
		return
	}
	if e := s.rpc().Reply(context.Background(), req.ID, result); e != nil {
		s.log.Debug("reply failed", zap.Error(e))
	}
}

// invalidParams builds the error for params that do not decode.
func invalidParams(err error) error {
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "invalid params: " + err.Error()}
}

// decodeParams decodes params into v, answering InvalidParams on failure.
func decodeParams(raw *json.RawMessage, v any) error {
	if raw == nil {
		return invalidParams(fmt.Errorf("params are missing"))
	}
	if err := json.Unmarshal(*raw, v); err != nil {
		return invalidParams(err)
	}
	return nil
}

// Terminate ends the session as if the client had sent exit without
// shutdown: Serve returns after running tools are cancelled (their process
// groups killed) and plugin and MCP sources are stopped. For signals.
func (s *Server) Terminate() {
	s.stop() // first: a tool killed from now on counts as interrupted, not finished
	s.exit()
}

func (s *Server) exit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
	default:
		close(s.exited)
	}
}

func (s *Server) handleNotification(req *jsonrpc2.Request) {
	switch req.Method {
	case "initialized":
		go s.afterInitialized()
	case "exit":
		s.exit()
	case "$/cancelRequest":
		var p struct {
			ID jsonrpc2.ID `json:"id"`
		}
		if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
			s.mu.Lock()
			cancel := s.cancels[p.ID.String()]
			s.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	case "textDocument/didOpen":
		s.didOpen(req.Params)
	case "textDocument/didChange":
		s.didChange(req.Params)
	case "textDocument/didClose":
		s.didClose(req.Params)
	case "textDocument/didSave":
		// Saving changes nothing for the cycle: edits already arrived as didChange.
	case "workspace/didChangeConfiguration":
		go s.reloadEditorSettings(req.Params)
	case "window/workDoneProgress/cancel":
		s.progressCancelled(req.Params)
	default:
		s.log.Debug("ignored notification", zap.String("method", req.Method))
	}
}

// progressCancelled handles window/workDoneProgress/cancel from the UI.
func (s *Server) progressCancelled(raw *json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if raw == nil || json.Unmarshal(*raw, &p) != nil {
		return
	}
	var token string
	if json.Unmarshal(p.Token, &token) == nil && token != "" {
		s.sess.CancelProgress(token)
	}
}
