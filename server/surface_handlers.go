package server

import (
	"context"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/surface"
)

// The handlers below are thin: the work is in package surface, on the
// snapshot captured when the request arrived.

// noParams are the params of requests that need only their document.
type noParams struct{}

func (s *Server) documentSymbols(ctx context.Context, _ noParams, snap *snapshot) (any, error) {
	return surface.DocumentSymbols(snap.doc, snap.enc, func(id string) string {
		if s.sess.Running(snap.d, id) {
			return "running"
		}
		if r := snap.doc.ToolResult(id); r != nil {
			if r.Status == chatdoc.StatusDone {
				return "done"
			}
			return string(r.Status)
		}
		return "" // the outline then says unanswered or invalid input
	}), nil
}

func (s *Server) foldingRanges(ctx context.Context, _ noParams, snap *snapshot) (any, error) {
	return surface.FoldingRanges(snap.doc, snap.enc), nil
}

func (s *Server) selectionRanges(ctx context.Context, p protocol.SelectionRangeParams, snap *snapshot) (any, error) {
	positions := make([]chatdoc.Position, 0, len(p.Positions))
	for _, pos := range p.Positions {
		positions = append(positions, docPosition(pos))
	}
	return surface.SelectionRanges(snap.doc, snap.enc, positions), nil
}

func (s *Server) completion(ctx context.Context, p protocol.CompletionParams, snap *snapshot) (any, error) {
	var names []string
	for _, d := range s.sess.Registry().List() {
		names = append(names, d.Name)
	}
	return surface.Completion(snap.doc, snap.enc, docPosition(p.Position), names), nil
}

func (s *Server) documentLinks(ctx context.Context, _ noParams, snap *snapshot) (any, error) {
	dir := filepath.Dir(uriToPath(snap.uri))
	return surface.DocumentLinks(snap.doc, snap.enc, dir), nil
}

// codeLenses puts Approve / Reject / Explain above each pending placeholder.
func (s *Server) codeLenses(ctx context.Context, _ noParams, snap *snapshot) ([]protocol.CodeLens, error) {
	lenses := []protocol.CodeLens{}
	for _, r := range snap.doc.ToolResults() {
		if r.Status != chatdoc.StatusPending || snap.doc.ToolUse(r.ID) == nil {
			continue
		}
		rng := lspRange(snap.doc, r.HeaderSpan, snap.enc)
		args := []interface{}{map[string]any{"uri": snap.uri, "id": r.ID}}
		for _, c := range []struct{ title, cmd string }{
			{"Approve", "chatls.approve"}, {"Reject", "chatls.reject"}, {"Explain", "chatls.explain"},
		} {
			lenses = append(lenses, protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: c.title, Command: c.cmd, Arguments: args}})
		}
	}
	for _, a := range s.sess.AnswerLenses(snap.d, snap.doc) {
		rng := lspRange(snap.doc, a.At, snap.enc)
		lenses = append(lenses, protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: a.Title, Command: "chatls.usage",
			Arguments: []interface{}{map[string]any{"uri": snap.uri}}}})
	}
	return lenses, nil
}

func (s *Server) semanticTokensFull(ctx context.Context, _ noParams, snap *snapshot) (any, error) {
	return s.view(snap.uri).tokens.Full(snap.doc, snap.enc), nil
}

// semanticTokensDeltaParams is textDocument/semanticTokens/full/delta's params.
type semanticTokensDeltaParams struct {
	PreviousResultID string `json:"previousResultId"`
}

func (s *Server) semanticTokensDelta(ctx context.Context, p semanticTokensDeltaParams, snap *snapshot) (any, error) {
	return s.view(snap.uri).tokens.Delta(snap.doc, snap.enc, p.PreviousResultID), nil
}
