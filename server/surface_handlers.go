package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/server/surface"
)

// The handlers below are thin: the work is in package surface, on the
// snapshot captured when the request arrived.

func (s *Server) documentSymbols(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	if snap == nil {
		return nil, errNotOpen()
	}
	return surface.DocumentSymbols(snap.doc, snap.enc, func(id string) string {
		if ds, _, _, _ := s.current(snap.uri); ds != nil {
			s.mu.Lock()
			defer s.mu.Unlock()
			if run, ok := ds.ledger.Run(id); ok && run.Phase != cycle.Writing {
				return "running"
			}
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

func (s *Server) foldingRanges(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	if snap == nil {
		return nil, errNotOpen()
	}
	return surface.FoldingRanges(snap.doc, snap.enc), nil
}

func (s *Server) selectionRanges(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	var p protocol.SelectionRangeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, errNotOpen()
	}
	positions := make([]chatdoc.Position, 0, len(p.Positions))
	for _, pos := range p.Positions {
		positions = append(positions, fromLSPPosition(pos))
	}
	return surface.SelectionRanges(snap.doc, snap.enc, positions), nil
}

func (s *Server) completion(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	var p protocol.CompletionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, errNotOpen()
	}
	var names []string
	for _, d := range s.registry.List() {
		names = append(names, d.Name)
	}
	return surface.Completion(snap.doc, snap.enc, fromLSPPosition(p.Position), names), nil
}

func (s *Server) documentLinks(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	if snap == nil {
		return nil, errNotOpen()
	}
	dir := filepath.Dir(uriToPath(snap.uri))
	return surface.DocumentLinks(snap.doc, snap.enc, dir), nil
}

// codeLenses puts Approve / Reject / Explain above each pending placeholder.
func (s *Server) codeLenses(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	if snap == nil {
		return nil, errNotOpen()
	}
	lenses := []protocol.CodeLens{}
	for _, r := range snap.doc.ToolResults {
		if r.Status != chatdoc.StatusPending || snap.doc.ToolUse(r.ID) == nil {
			continue
		}
		rng := toProtocolRange(snap.doc.Range(r.HeaderSpan, snap.enc))
		args := []interface{}{map[string]any{"uri": snap.uri, "id": r.ID}}
		for _, c := range []struct{ title, cmd string }{
			{"Approve", "chatls.approve"}, {"Reject", "chatls.reject"}, {"Explain", "chatls.explain"},
		} {
			lenses = append(lenses, protocol.CodeLens{Range: rng, Command: &protocol.Command{Title: c.title, Command: c.cmd, Arguments: args}})
		}
	}
	return lenses, nil
}

func toProtocolRange(r chatdoc.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}

func (s *Server) semanticTokensFull(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	if snap == nil {
		return nil, errNotOpen()
	}
	ds, _, _, _ := s.current(snap.uri)
	if ds == nil {
		return nil, errNotOpen()
	}
	data := ds.tokens.Tokens(snap.doc, snap.enc)
	return map[string]any{"resultId": s.rememberTokens(ds, data), "data": data}, nil
}

func (s *Server) semanticTokensDelta(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	var p struct {
		PreviousResultID string `json:"previousResultId"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, errNotOpen()
	}
	ds, _, _, _ := s.current(snap.uri)
	if ds == nil {
		return nil, errNotOpen()
	}
	prevID, prev := s.lastTokens(ds)
	data := ds.tokens.Tokens(snap.doc, snap.enc)
	id := s.rememberTokens(ds, data)
	if prevID != p.PreviousResultID {
		return map[string]any{"resultId": id, "data": data}, nil
	}
	return map[string]any{"resultId": id, "edits": surface.SemanticTokensDelta(prev, data)}, nil
}

// rememberTokens stores the tokens sent to the client for the next delta.
func (s *Server) rememberTokens(ds *docState, data []uint32) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds.tokenSerial++
	ds.tokenID, ds.tokenData = strconv.Itoa(ds.tokenSerial), data
	return ds.tokenID
}

func (s *Server) lastTokens(ds *docState) (string, []uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ds.tokenID, ds.tokenData
}
