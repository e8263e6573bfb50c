package server

import (
	"encoding/json"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/session"
)

// snapshot is what a request handler works on: the document the request
// names as it was when the request was dispatched.
type snapshot struct {
	uri     string
	d       *session.Doc
	doc     *chatdoc.Document
	version int32
	enc     chatdoc.Encoding
}

// captureSnapshot finds the snapshot of the document a request names, at the
// moment the request is dispatched.
func (s *Server) captureSnapshot(params *json.RawMessage) *snapshot {
	if params == nil {
		return nil
	}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Arguments []struct {
			URI string `json:"uri"`
		} `json:"arguments"`
	}
	if json.Unmarshal(*params, &p) != nil {
		return nil
	}
	uri := p.TextDocument.URI
	if uri == "" && len(p.Arguments) > 0 {
		uri = p.Arguments[0].URI
	}
	d := s.sess.Doc(uri)
	if d == nil {
		return nil
	}
	doc, version := s.sess.Snapshot(d)
	return &snapshot{uri: uri, d: d, doc: doc, version: version, enc: s.encoding()}
}
