package lspclient

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// handler answers the server's requests and records its notifications.
type handler struct{ c *Client }

type applyEditParams struct {
	Label string `json:"label"`
	Edit  struct {
		DocumentChanges []struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int32 `json:"version"`
			} `json:"textDocument"`
			Edits []TextEdit `json:"edits"`
		} `json:"documentChanges"`
		Changes map[string][]TextEdit `json:"changes"`
	} `json:"edit"`
}

func (h handler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	c := h.c
	raw := json.RawMessage("null")
	if req.Params != nil {
		raw = *req.Params
	}
	switch req.Method {
	case "workspace/applyEdit":
		var p applyEditParams
		if err := json.Unmarshal(raw, &p); err != nil {
			_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()})
			return
		}
		if c.opts.ApplyDelay != nil {
			time.Sleep(c.opts.ApplyDelay(int(c.applies.Add(1)))) // the editor is busy: this is the fault modelled
		}
		if c.opts.BeforeApply != nil {
			c.opts.BeforeApply(c)
		}
		if c.opts.RefuseEdit != nil && c.opts.RefuseEdit(p.Label) {
			c.mu.Lock()
			c.record(Event{Kind: "refused", Label: p.Label})
			c.mu.Unlock()
			_ = conn.Reply(ctx, req.ID, map[string]any{"applied": false, "failureReason": "refused by the test"})
			return
		}
		if c.opts.DropApplyEdit != nil && c.opts.DropApplyEdit(p.Label) {
			c.mu.Lock()
			c.record(Event{Kind: "dropped", Label: p.Label})
			c.mu.Unlock()
			return
		}
		if c.opts.SilentApply {
			h.applySilently(p)
			return
		}
		applied, reason := h.apply(ctx, p)
		if c.opts.NeverReplyToApplyEdit {
			return
		}
		_ = conn.Reply(ctx, req.ID, map[string]any{"applied": applied, "failureReason": reason})
	case "window/workDoneProgress/create", "workspace/inlayHint/refresh", "workspace/codeLens/refresh", "workspace/semanticTokens/refresh":
		c.mu.Lock()
		c.record(Event{Kind: "refresh", Label: req.Method, Data: raw})
		c.mu.Unlock()
		_ = conn.Reply(ctx, req.ID, nil)
	case "workspace/configuration":
		_ = conn.Reply(ctx, req.ID, []any{c.opts.Configuration})
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string       `json:"uri"`
			Diagnostics []Diagnostic `json:"diagnostics"`
		}
		if json.Unmarshal(raw, &p) == nil {
			c.mu.Lock()
			c.diagnostics[p.URI] = p.Diagnostics
			c.record(Event{Kind: "diagnostics", URI: p.URI, Data: raw})
			c.mu.Unlock()
		}
	case "$/progress":
		var p struct {
			Token string `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if json.Unmarshal(raw, &p) == nil {
			c.mu.Lock()
			c.progress[p.Token] = append(c.progress[p.Token], p.Value.Kind)
			c.record(Event{Kind: "progress", Label: p.Value.Kind, Data: raw})
			c.mu.Unlock()
		}
	case "chatls/status":
		var p struct {
			URI  string `json:"uri"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &p) == nil {
			c.mu.Lock()
			c.record(Event{Kind: "status", URI: p.URI, Label: p.Text, Data: raw})
			c.mu.Unlock()
		}
	case "window/showMessage", "window/logMessage":
		c.mu.Lock()
		c.record(Event{Kind: "message", Label: req.Method, Data: raw})
		c.mu.Unlock()
	default:
		if !req.Notif {
			_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: req.Method})
		}
	}
}

// applySilently applies a workspace edit to the client's copies without
// telling the server (SilentApply).
func (h handler) applySilently(p applyEditParams) {
	c := h.c
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	apply := func(d *Document, edits []TextEdit) {
		before := d.Text
		if _, err := c.applyLocked(d, edits); err == nil {
			c.record(Event{Kind: "applyEdit", URI: d.URI, Label: p.Label, Before: before, After: d.Text})
		}
	}
	for _, dc := range p.Edit.DocumentChanges {
		if d := c.docs[dc.TextDocument.URI]; d != nil && (dc.TextDocument.Version == nil || *dc.TextDocument.Version == d.Version) {
			apply(d, dc.Edits)
		}
	}
	for uri, edits := range p.Edit.Changes {
		if d := c.docs[uri]; d != nil {
			apply(d, edits)
		}
	}
}

// apply applies a workspace edit the way an editor does: a versioned
// TextDocumentEdit for another version than the buffer's is refused.
func (h handler) apply(ctx context.Context, p applyEditParams) (bool, string) {
	c := h.c
	type job struct {
		uri     string
		version *int32
		edits   []TextEdit
	}
	var jobs []job
	for _, dc := range p.Edit.DocumentChanges {
		jobs = append(jobs, job{dc.TextDocument.URI, dc.TextDocument.Version, dc.Edits})
	}
	for uri, edits := range p.Edit.Changes {
		jobs = append(jobs, job{uri, nil, edits})
	}
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	for _, j := range jobs {
		c.mu.Lock()
		d := c.docs[j.uri]
		if d == nil {
			c.mu.Unlock()
			return false, "document not open: " + j.uri
		}
		if j.version != nil && *j.version != d.Version {
			c.record(Event{Kind: "refused", URI: j.uri, Label: p.Label})
			c.mu.Unlock()
			return false, "the document changed: version mismatch"
		}
		before := d.Text
		changes, err := c.applyLocked(d, j.edits)
		if err != nil {
			c.mu.Unlock()
			return false, err.Error()
		}
		changes = c.reshape(c.opts.Echo, before, d.Text, changes)
		version := d.Version
		c.record(Event{Kind: "applyEdit", URI: j.uri, Label: p.Label, Before: before, After: d.Text})
		c.mu.Unlock()
		if c.opts.DelayEcho > 0 {
			c.delayed.send(ctx, c, j.uri, version, changes)
			continue
		}
		if err := c.sendChange(ctx, j.uri, version, changes); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}
