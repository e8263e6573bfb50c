package server

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/server/surface"
	"github.com/chatls/chatls/tools"
)

// hover shows a tool use's or placeholder's description, full input, the
// policy decision with its trace, and the status (SPEC §3).
func (s *Server) hover(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	var p protocol.HoverParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, errNotOpen()
	}
	doc := snap.doc
	offset := doc.Lines.Offset(fromLSPPosition(p.Position), snap.enc)
	r, u := blockAt(doc, offset)
	if u == nil {
		return nil, nil
	}
	ds, _, _, _ := s.current(snap.uri)
	info := surface.HoverInfo{Input: u.Input, RawInput: u.RawInput, Status: "no result yet"}
	if t, ok := s.registry.Lookup(u.Name); ok {
		info.Tool, info.Known = t.Definition(), true
		info.Annotations = info.Tool.Annotations
	} else {
		info.Tool = tools.Definition{Name: u.Name}
	}
	if r != nil {
		info.Status = string(r.Status)
		if info.Status == "" {
			info.Status = "finished"
		}
	}
	if ds != nil {
		v := s.decide(ds, doc, u, "")
		info.Decision, info.Trace = string(v.Decision), v.Format()
		s.mu.Lock()
		if rs := ds.running[u.ID]; rs != nil {
			started := rs.started
			info.Started = &started
			info.Status = "running"
		}
		s.mu.Unlock()
		if problem := s.sandboxUnavailable(); problem != "" && u.Name == "bash" {
			info.Trace += "\nsandbox: bubblewrap cannot run (" + problem + "); bash calls ask for approval"
		}
	}
	span := u.Span
	if r != nil && r.Span.Contains(offset) {
		span = r.Span
	}
	return map[string]any{
		"contents": map[string]any{"kind": "markdown", "value": surface.HoverMarkdown(info)},
		"range":    toLSPRange(doc.Range(span, snap.enc)),
	}, nil
}
