package server

import "encoding/json"

// pullSettings asks the client for section "chatls"
// (workspace/configuration) and hands it to the session.
func (s *Server) pullSettings() {
	data, _ := s.pullConfiguration()
	s.sess.SetEditorSettings(data)
}

// reloadEditorSettings handles workspace/didChangeConfiguration: settings in
// the notification are used directly; otherwise they are pulled.
func (s *Server) reloadEditorSettings(raw *json.RawMessage) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if raw != nil && json.Unmarshal(*raw, &p) == nil && len(p.Settings) > 0 && string(p.Settings) != "null" {
		s.sess.SetEditorSettings(p.Settings)
		return
	}
	s.pullSettings()
}
