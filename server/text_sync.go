package server

import (
	"encoding/json"
	"runtime"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/framing"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/session"
	"github.com/chatls/chatls/surface"
)

// didOpen installs the first snapshot. Opening only analyses: it edits and
// runs nothing (SPEC §2).
func (s *Server) didOpen(raw *json.RawMessage) {
	var p protocol.DidOpenTextDocumentParams
	if raw == nil || decodeTextParams(*raw, &p, func(l *framing.Lifted) { l.Restore(&p.TextDocument.Text) }) != nil {
		s.log.Warn("didOpen with invalid params ignored")
		return
	}
	// A large frame is garbage once decoded (the text is a copy): dropped
	// from the request, the collection below can take it.
	large := len(*raw) >= collectAfterOpen
	if large {
		*raw = nil
	}
	uri := string(p.TextDocument.URI)
	if !session.IsConversation(uri, string(p.TextDocument.LanguageID)) {
		// Another buffer of the editor's: followed, so that a rewind
		// changes it in the editor (SPEC §10); no diagnostics, no cycle.
		s.sess.OpenFile(uri, p.TextDocument.Text, p.TextDocument.Version)
		return
	}
	s.mu.Lock()
	s.views[uri] = &docView{tokens: surface.NewTokenResults()}
	s.mu.Unlock()
	s.sess.Open(uri, p.TextDocument.Text, p.TextDocument.Version)
	if large {
		// Reading and parsing a large document leaves several times its
		// size in garbage, and the collection that clears it came during
		// the first keystrokes, which paid for its marking. Collected now,
		// before the next message is read, the first keystrokes start with
		// the collector's whole headroom, and its goal is set by what is
		// live (docs/performance.md, "Typing from the first key").
		runtime.GC()
	}
}

// collectAfterOpen is the didOpen frame size from which didOpen collects.
const collectAfterOpen = 1 << 20

// decodeTextParams is json.Unmarshal(raw, p) for didOpen and didChange,
// whose "text" may be a whole document: a long one is decoded by the fast
// reader (framing.Lift), and restore puts it where its placeholder landed.
func decodeTextParams(raw []byte, p any, restore func(*framing.Lifted)) error {
	if len(raw) >= liftFrom {
		if small, lifted, ok := framing.Lift(raw); ok {
			if err := json.Unmarshal(small, p); err != nil {
				return err
			}
			restore(lifted)
			return nil
		}
	}
	return json.Unmarshal(raw, p)
}

// liftFrom is the params size from which decodeTextParams lifts.
const liftFrom = 64 << 10

// didChange is the one modification funnel for client edits: it applies the
// content changes to the snapshot, records what the user did (approvals,
// rejections, input edits) and wakes the cycle.
func (s *Server) didChange(raw *json.RawMessage) {
	var p lspext.DidChangeTextDocumentParams
	restore := func(l *framing.Lifted) {
		for i := range p.ContentChanges {
			l.Restore(&p.ContentChanges[i].Text)
		}
	}
	if raw == nil || decodeTextParams(*raw, &p, restore) != nil {
		s.log.Warn("didChange with invalid params ignored")
		return
	}
	uri := string(p.TextDocument.URI)
	changes := make([]chatdoc.Change, 0, len(p.ContentChanges))
	for _, c := range p.ContentChanges {
		ch := chatdoc.Change{Text: c.Text}
		if c.Range != nil {
			ch.Range = &chatdoc.Range{
				Start: chatdoc.Position{Line: int(c.Range.Start.Line), Character: int(c.Range.Start.Character)},
				End:   chatdoc.Position{Line: int(c.Range.End.Line), Character: int(c.Range.End.Character)},
			}
		}
		changes = append(changes, ch)
	}
	if !s.sess.Change(uri, changes, p.TextDocument.Version) && !s.sess.ChangeFile(uri, changes, p.TextDocument.Version) {
		s.log.Warn("didChange for a document that is not open", zap.String("uri", uri))
	}
}

func (s *Server) didClose(raw *json.RawMessage) {
	var p protocol.DidCloseTextDocumentParams
	if raw == nil || json.Unmarshal(*raw, &p) != nil {
		return
	}
	uri := string(p.TextDocument.URI)
	if s.sess.CloseFile(uri) {
		return
	}
	s.mu.Lock()
	delete(s.views, uri)
	s.mu.Unlock()
	if s.sess.CloseDoc(uri) {
		// Clear the editor's problems list for the closed file.
		go s.publishDiagnostics(uri, nil, nil)
	}
}
