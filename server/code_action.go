package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/surface"
)

// codeAction is an LSP CodeAction; Edit or Command.
type codeAction struct {
	Title       string            `json:"title"`
	Kind        string            `json:"kind,omitempty"`
	IsPreferred bool              `json:"isPreferred,omitempty"`
	Edit        map[string]any    `json:"edit,omitempty"`
	Command     *protocol.Command `json:"command,omitempty"`
}

// codeActions offers the approval actions of SPEC §3 at a placeholder or
// tool use, the document-wide "all pending" actions and quick fixes.
// Approve and Reject are plain edits of the status: approval is an edit.
func (s *Server) codeActions(ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
	var p protocol.CodeActionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if snap == nil {
		return nil, errNotOpen()
	}
	doc := snap.doc
	span := doc.Span(fromLSPRange(p.Range), snap.enc)
	ds, _, _, _ := s.current(snap.uri)
	actions := []codeAction{}
	edit := func(edits []chatdoc.TextEdit) map[string]any {
		return s.workspaceEdit(snap.uri, snap.version, doc, edits)
	}
	command := func(title, name string, args map[string]any) *protocol.Command {
		return &protocol.Command{Title: title, Command: name, Arguments: []interface{}{args}}
	}
	maxLen := s.settings.effective().InlayHintsMaxLength

	if r, u := blockAt(doc, span.Start); u != nil {
		name := u.Name
		running := false
		if ds != nil {
			s.mu.Lock()
			running = ds.running[u.ID] != nil
			s.mu.Unlock()
		}
		switch {
		case running:
			actions = append(actions, codeAction{Title: "Cancel", Kind: "quickfix",
				Command: command("Cancel", "chatls.cancel", map[string]any{"uri": snap.uri, "id": u.ID})})
		case r == nil && u.Valid():
			actions = append(actions, codeAction{Title: "Insert approval placeholders", Kind: "quickfix", IsPreferred: true,
				Command: command("Insert approval placeholders", "chatls.advance", map[string]any{"uri": snap.uri})})
		case r != nil && r.IsPlaceholder():
			if r.Status != chatdoc.StatusApproved {
				if e, err := chatdoc.SetStatus(doc, u.ID, chatdoc.StatusApproved); err == nil {
					actions = append(actions, codeAction{Title: fmt.Sprintf("Approve %s: %s", name, strings.TrimPrefix(s.preview(u, maxLen), name+": ")), Kind: "quickfix", IsPreferred: true, Edit: edit(e)})
				}
			} else if ds != nil && !s.runnable(ds, doc, u) {
				if e, err := chatdoc.SetStatus(doc, u.ID, chatdoc.StatusPending); err == nil {
					actions = append(actions, codeAction{Title: fmt.Sprintf("Ask again for %s (set to pending, then approve)", name), Kind: "quickfix", IsPreferred: true, Edit: edit(e)})
				}
			}
			if r.Status != chatdoc.StatusRejected {
				if e, err := chatdoc.SetStatus(doc, u.ID, chatdoc.StatusRejected); err == nil {
					actions = append(actions, codeAction{Title: "Reject " + name, Kind: "quickfix", Edit: edit(e)})
				}
			}
			if r.Status != chatdoc.StatusPending || strings.TrimSpace(r.Content) != "" {
				actions = append(actions, codeAction{Title: "Run now", Kind: "quickfix",
					Command: command("Run now", "chatls.run", map[string]any{"uri": snap.uri, "id": u.ID})})
			}
			if rule := approval.SuggestRule(approval.Call{Tool: u.Name, Input: u.Input, DocPath: uriToPath(snap.uri), WorkspaceRoot: s.workspaceRoot(uriToPath(snap.uri))}); rule != "" {
				actions = append(actions, codeAction{Title: fmt.Sprintf("Always allow %s in this workspace", rule), Kind: "quickfix",
					Command: command("Always allow", "chatls.alwaysAllow", map[string]any{"uri": snap.uri, "id": u.ID, "scope": "workspace", "rule": rule})})
			}
		}
	}
	actions = append(actions, s.allPendingActions(doc, edit)...)
	actions = append(actions, s.quickFixes(ds, doc, span, edit)...)
	return actions, nil
}

// allPendingActions are "Approve all N pending" and "Reject all N pending".
func (s *Server) allPendingActions(doc *chatdoc.Document, edit func([]chatdoc.TextEdit) map[string]any) []codeAction {
	var approve, reject []chatdoc.TextEdit
	n := 0
	for _, r := range doc.ToolResults {
		if r.Status != chatdoc.StatusPending || doc.ToolUse(r.ID) == nil {
			continue
		}
		a, err1 := chatdoc.SetStatus(doc, r.ID, chatdoc.StatusApproved)
		j, err2 := chatdoc.SetStatus(doc, r.ID, chatdoc.StatusRejected)
		if err1 != nil || err2 != nil {
			continue
		}
		approve = append(approve, a...)
		reject = append(reject, j...)
		n++
	}
	if n == 0 {
		return nil
	}
	return []codeAction{
		{Title: fmt.Sprintf("Approve all %d pending", n), Kind: "source.chatls", Edit: edit(approve)},
		{Title: fmt.Sprintf("Reject all %d pending", n), Kind: "source.chatls", Edit: edit(reject)},
	}
}

// quickFixes offers the mechanical fix of each diagnostic under the range.
func (s *Server) quickFixes(ds *docState, doc *chatdoc.Document, span chatdoc.Span, edit func([]chatdoc.TextEdit) map[string]any) []codeAction {
	var out []codeAction
	var diags []chatdoc.Diagnostic
	if ds != nil {
		diags = s.cachedDiagnostics(ds, doc, false)
	} else {
		diags = doc.Diagnostics
	}
	for _, d := range diags {
		if d.Span.End < span.Start || d.Span.Start > span.End {
			continue
		}
		for _, f := range surface.QuickFixes(doc, d, s.registry) {
			out = append(out, codeAction{Title: f.Title, Kind: "quickfix", IsPreferred: f.Preferred, Edit: edit(f.Edits)})
		}
	}
	return out
}

// blockAt finds the tool result or tool use at offset, and the pair's use.
func blockAt(doc *chatdoc.Document, offset int) (*chatdoc.ToolResult, *chatdoc.ToolUse) {
	m := doc.MessageAt(offset)
	if m == nil {
		return nil, nil
	}
	for _, r := range m.ToolResults {
		if r.Span.Contains(offset) {
			return r, doc.ToolUse(r.ID)
		}
	}
	for _, u := range m.ToolUses {
		if u.Span.Contains(offset) {
			return doc.ToolResult(u.ID), u
		}
	}
	return nil, nil
}

// runnable says whether an approved placeholder would run now (gate's rules
// without its side conditions).
func (s *Server) runnable(ds *docState, doc *chatdoc.Document, u *chatdoc.ToolUse) bool {
	s.mu.Lock()
	h, ok := ds.userApproved[u.ID]
	s.mu.Unlock()
	if ok && h == inputHash(u) {
		return true
	}
	return s.decide(ds, doc, u, "").Decision == approval.Approve
}
