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
	path := uriToPath(snap.uri)
	maxLen := s.settings.effectiveFor(path).InlayHintsMaxLength

	dups := duplicateIDs(doc)
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
		case r == nil && u.Valid() && !dups[u.ID]:
			actions = append(actions, codeAction{Title: "Insert approval placeholders", Kind: "quickfix", IsPreferred: true,
				Command: command("Insert approval placeholders", "chatls.advance", map[string]any{"uri": snap.uri})})
		case r != nil && r.IsPlaceholder() && actionable(doc, dups, r, u):
			empty := strings.TrimSpace(r.Content) == ""
			switch r.Status {
			case chatdoc.StatusPending:
				// Approving counts only from pending, for an empty block (a
				// filled one becomes the user's result, never runs).
				if empty {
					if e, err := chatdoc.SetStatus(doc, u.ID, chatdoc.StatusApproved); err == nil {
						actions = append(actions, codeAction{Title: fmt.Sprintf("Approve %s: %s", name, strings.TrimPrefix(s.preview(u, maxLen), name+": ")), Kind: "quickfix", IsPreferred: true, Edit: edit(e)})
					}
				}
			case chatdoc.StatusApproved:
				if empty && ds != nil && s.runnable(ds, doc, u) {
					actions = append(actions, codeAction{Title: "Run now", Kind: "quickfix",
						Command: command("Run now", "chatls.run", map[string]any{"uri": snap.uri, "id": u.ID})})
				} else if empty && ds != nil {
					if e, err := chatdoc.SetStatus(doc, u.ID, chatdoc.StatusPending); err == nil {
						actions = append(actions, codeAction{Title: fmt.Sprintf("Ask again for %s (set to pending, then approve)", name), Kind: "quickfix", IsPreferred: true, Edit: edit(e)})
					}
				}
			}
			if e, err := chatdoc.SetStatus(doc, u.ID, chatdoc.StatusRejected); err == nil {
				actions = append(actions, codeAction{Title: "Reject " + name, Kind: "quickfix", Edit: edit(e)})
			}
			root := s.workspaceRoot(path)
			if rule := approval.SuggestRule(approval.Call{Tool: u.Name, Input: u.Input, DocPath: path, WorkspaceRoot: root}); rule != "" {
				// A rule in the .chatls.toml of an untrusted workspace would
				// have no effect: the command writes the user config then,
				// and the title says so.
				title, scope := fmt.Sprintf("Always allow %s in this workspace", rule), "workspace"
				if !s.settings.workspaceApplies(root) {
					title, scope = fmt.Sprintf("Always allow %s in your user config (this workspace is not trusted)", rule), "user"
				}
				actions = append(actions, codeAction{Title: title, Kind: "quickfix",
					Command: command("Always allow", "chatls.alwaysAllow", map[string]any{"uri": snap.uri, "id": u.ID, "scope": scope, "rule": rule})})
			}
		}
	}
	actions = append(actions, s.allPendingActions(doc, dups, edit)...)
	actions = append(actions, s.quickFixes(ds, doc, span, edit)...)
	return actions, nil
}

// allPendingActions are "Approve all N pending" and "Reject all N pending":
// the empty pending placeholders an approval can take effect on.
func (s *Server) allPendingActions(doc *chatdoc.Document, dups map[string]bool, edit func([]chatdoc.TextEdit) map[string]any) []codeAction {
	var approve, reject []chatdoc.TextEdit
	n := 0
	for _, r := range doc.ToolResults {
		if r.Status != chatdoc.StatusPending || strings.TrimSpace(r.Content) != "" || !actionable(doc, dups, r, doc.ToolUse(r.ID)) {
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

// actionable says whether approving or rejecting the placeholder r can take
// effect: it is the first result for a valid tool use whose ID no other
// tool use shares, and it is pending or approved. Denied, rejected and
// aborted blocks only wait for their fixed result.
func actionable(doc *chatdoc.Document, dups map[string]bool, r *chatdoc.ToolResult, u *chatdoc.ToolUse) bool {
	if u == nil || !u.Valid() || doc.ToolResult(r.ID) != r || dups[r.ID] {
		return false
	}
	return r.Status == chatdoc.StatusPending || r.Status == chatdoc.StatusApproved
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
// without its side conditions): the policy does not deny it, and it approves
// it or the user approved this exact input in this session.
func (s *Server) runnable(ds *docState, doc *chatdoc.Document, u *chatdoc.ToolUse) bool {
	switch s.decide(ds, doc, u, "").Decision {
	case approval.Deny:
		return false
	case approval.Approve:
		return true
	}
	s.mu.Lock()
	h, ok := ds.userApproved[u.ID]
	s.mu.Unlock()
	return ok && h == inputHash(u)
}
