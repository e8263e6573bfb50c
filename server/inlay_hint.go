package server

import (
	"context"

	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/surface"
)

// inlayHints shows a preview of each call inside its empty placeholder, at
// the end of the fence opener line (SPEC §3); a running call shows its
// elapsed time. While custom tool sources load, calls of a tool not known
// yet say so (on the placeholder, or on the tool-use header when there is
// none yet). Only hints whose position lies in the requested range are
// returned: clients ask for the visible lines.
func (s *Server) inlayHints(ctx context.Context, p lspext.InlayHintParams, snap *snapshot) ([]lspext.InlayHint, error) {
	doc := snap.doc
	span := spanOf(doc, p.Range, snap.enc)
	hints := []lspext.InlayHint{}
	for _, h := range s.sess.Hints(snap.d, doc, span) {
		hints = append(hints, lspext.InlayHint{
			Position:    surface.LSPPosition(doc.Lines.Position(h.At, snap.enc)),
			Label:       h.Label,
			PaddingLeft: true,
			Tooltip:     h.Tooltip,
		})
	}
	return hints, nil
}
