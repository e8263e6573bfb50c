package server

import "time"

// clientCallTimeout bounds every request to the client: an editor that never
// answers must not hang the server.
const clientCallTimeout = 5 * time.Second

// Message types of window/showMessage.
const (
	messageError   = 1
	messageWarning = 2
	messageInfo    = 3
)

// showMessage tells the user something in the editor's UI.
func (s *Server) showMessage(kind int, text string) {
	s.log.Info("showMessage: " + text)
	go s.notify("window/showMessage", map[string]any{"type": kind, "message": text})
}

// refreshHints asks the client to re-request inlay hints (and code lenses),
// only when it advertised refresh support. It is a request, not a notification.
func (s *Server) refreshHints() {
	s.mu.Lock()
	ws := s.caps.Workspace
	s.mu.Unlock()
	if ws == nil || s.rpc() == nil {
		return
	}
	if ws.InlayHint != nil && ws.InlayHint.RefreshSupport && s.refreshBusy.CompareAndSwap(false, true) {
		go func() {
			defer s.refreshBusy.Store(false)
			_ = s.call("workspace/inlayHint/refresh", nil, nil, clientCallTimeout)
		}()
	}
	if ws.CodeLens != nil && ws.CodeLens.RefreshSupport {
		go func() { _ = s.call("workspace/codeLens/refresh", nil, nil, clientCallTimeout) }()
	}
}
