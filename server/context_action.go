package server

import (
	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/lspext"
)

// contextActions are "Trim old tool outputs" and "Compact the
// conversation" on the context window's warning under span (SPEC §11):
// quick fixes of that diagnostic, each a command on the document (the
// summary needs a model; the archive is written before the edit).
func (s *Server) contextActions(snap *snapshot, span chatdoc.Span) []codeAction {
	if snap.d == nil {
		return nil
	}
	var out []codeAction
	for _, o := range s.sess.ContextOffers(snap.d, snap.doc, span) {
		out = append(out, codeAction{Title: o.Title, Kind: "quickfix", IsPreferred: o.Preferred,
			Diagnostics: []lspext.Diagnostic{lspDiagnostic(snap.doc, o.Diagnostic, snap.enc)},
			Command:     &protocol.Command{Title: o.Title, Command: o.Command, Arguments: []interface{}{map[string]any{"uri": snap.uri}}}})
	}
	return out
}

// lspDiagnostic is a diagnostic as published.
func lspDiagnostic(doc *chatdoc.Document, d chatdoc.Diagnostic, enc chatdoc.Encoding) lspext.Diagnostic {
	return lspext.Diagnostic{Range: lspRange(doc, d.Span, enc), Severity: int(d.Severity), Code: d.Code, Source: "chatls", Message: d.Message}
}
