package server

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/surface"
)

// hover shows a tool use's or placeholder's description, full input, the
// policy decision with its trace, and the status (SPEC §3); on a tool use
// with a checkpoint, first what a rewind to before it changes (§10).
func (s *Server) hover(ctx context.Context, p protocol.HoverParams, snap *snapshot) (any, error) {
	doc := snap.doc
	offset := offsetAt(doc, p.Position, snap.enc)
	r, u := blockAt(doc, offset)
	ds := snap.d
	if u == nil {
		md, at, ok := s.sess.AnswerHover(ds, doc, offset)
		if !ok {
			return nil, nil
		}
		return map[string]any{
			"contents": map[string]any{"kind": "markdown", "value": md},
			"range":    lspRange(doc, at, snap.enc),
		}, nil
	}
	info := s.sess.HoverInfo(ctx, ds, doc, r, u)
	span := u.Span
	md := surface.HoverMarkdown(info)
	if r != nil && r.Span.Contains(offset) {
		span = r.Span
	} else if rw := s.sess.RewindHover(ctx, ds, doc, u); rw != "" {
		// What a rewind to before this call changes comes first (SPEC §10).
		md = rw + "\n---\n\n" + md
	}
	return map[string]any{
		"contents": map[string]any{"kind": "markdown", "value": md},
		"range":    lspRange(doc, span, snap.enc),
	}, nil
}
