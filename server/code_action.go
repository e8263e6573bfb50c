package server

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/frontmatter"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/session"
	"github.com/chatls/chatls/surface"
)

// codeAction is an LSP CodeAction; Edit or Command.
type codeAction struct {
	Title       string                `json:"title"`
	Kind        string                `json:"kind,omitempty"`
	IsPreferred bool                  `json:"isPreferred,omitempty"`
	Edit        *lspext.WorkspaceEdit `json:"edit,omitempty"`
	Command     *protocol.Command     `json:"command,omitempty"`
	// Diagnostics are the ones the action fixes (the context window's).
	Diagnostics []lspext.Diagnostic `json:"diagnostics,omitempty"`
	// Disabled says why an action that cannot be taken is shown (LSP
	// 3.16): a rewind of a call on a remote target.
	Disabled *codeActionDisabled `json:"disabled,omitempty"`
}

type codeActionDisabled struct {
	Reason string `json:"reason"`
}

// codeActions offers the approval actions of SPEC §3 at a placeholder or
// tool use, the document-wide "all pending" actions and quick fixes.
// Approve and Reject are plain edits of the status: approval is an edit.
func (s *Server) codeActions(ctx context.Context, p protocol.CodeActionParams, snap *snapshot) ([]codeAction, error) {
	doc := snap.doc
	span := spanOf(doc, p.Range, snap.enc)
	ds := snap.d
	actions := []codeAction{}
	edit := func(edits []chatdoc.TextEdit) *lspext.WorkspaceEdit {
		e := s.workspaceEdit(snap.uri, snap.version, true, doc, edits)
		return &e
	}
	command := func(title, name string, args map[string]any) *protocol.Command {
		return &protocol.Command{Title: title, Command: name, Arguments: []interface{}{args}}
	}

	if r, u := blockAt(doc, span.Start); u != nil && ds != nil {
		// An agent's permission that waits: its own options first, by
		// name and in its order (SPEC §12).
		for _, o := range s.sess.AgentOptions(ds, u.ID) {
			actions = append(actions, codeAction{Title: o.Name, Kind: "quickfix",
				Command: command(o.Name, session.CommandAgentOption, map[string]any{"uri": snap.uri, "id": u.ID, "option": o.ID})})
		}
		for _, o := range s.sess.Offers(ds, doc, r, u) {
			if act, ok := s.codeActionFor(o, snap, doc, u, edit, command); ok {
				actions = append(actions, act)
			}
		}
	}
	if ds != nil {
		actions = append(actions, s.rewindActions(ctx, snap, span.Start)...)
	}
	actions = append(actions, s.allPendingActions(doc, edit)...)
	for _, fix := range s.quickFixes(ds, doc, span, edit) {
		if fix.insertsPlaceholders && hasTitle(actions, session.InsertTitle) {
			continue // one action that inserts placeholders, the one that applies the policy
		}
		actions = append(actions, fix.codeAction)
	}
	actions = append(actions, s.contextActions(snap, span)...)
	return actions, nil
}

// codeActionFor turns one of the session's offers into an LSP code
// action: Approve and Reject are plain edits of the status (approval is an
// edit), the others commands.
func (s *Server) codeActionFor(o session.Offer, snap *snapshot, doc *chatdoc.Document, u *chatdoc.ToolUse,
	edit func([]chatdoc.TextEdit) *lspext.WorkspaceEdit, command func(title, name string, args map[string]any) *protocol.Command) (codeAction, bool) {
	args := map[string]any{"uri": snap.uri, "id": u.ID}
	setStatus := func(to chatdoc.Status, preferred bool) (codeAction, bool) {
		e, err := chatdoc.SetStatus(doc, u.ID, to)
		return codeAction{Title: o.Title, Kind: "quickfix", IsPreferred: preferred, Edit: edit(e)}, err == nil
	}
	approveWithWords := func(words string) (codeAction, bool) {
		e, err := approveWith(doc, u.ID, words)
		return codeAction{Title: o.Title, Kind: "quickfix", Edit: edit(e)}, err == nil
	}
	switch o.Action {
	case cycle.ActCancel:
		return codeAction{Title: o.Title, Kind: "quickfix", Command: command(o.Title, "chatls.cancel", args)}, true
	case cycle.ActInsert:
		return codeAction{Title: o.Title, Kind: "quickfix", IsPreferred: true,
			Command: command(o.Title, "chatls.advance", map[string]any{"uri": snap.uri})}, true
	case cycle.ActApprove:
		return setStatus(chatdoc.StatusApproved, true)
	case cycle.ActApproveOutside:
		return approveWithWords(" sandbox=off")
	case cycle.ActApproveOutsideNetwork:
		return approveWithWords(" sandbox=off network=on")
	case cycle.ActRunNow:
		return codeAction{Title: o.Title, Kind: "quickfix", Command: command(o.Title, "chatls.run", args)}, true
	case cycle.ActAskAgain:
		return setStatus(chatdoc.StatusPending, true)
	case cycle.ActReject:
		return setStatus(chatdoc.StatusRejected, false)
	case cycle.ActAlwaysAllow:
		return codeAction{Title: o.Title, Kind: "quickfix",
			Command: command("Always allow", "chatls.alwaysAllow", map[string]any{"uri": snap.uri, "id": u.ID, "scope": o.Scope, "rule": o.Rule})}, true
	}
	return codeAction{}, false
}

// rewindActions are the rewind actions of SPEC §10 at a tool use or a
// message marker, as commands (the files change when they run).
func (s *Server) rewindActions(ctx context.Context, snap *snapshot, offset int) []codeAction {
	var out []codeAction
	for _, o := range s.sess.RewindOffers(ctx, snap.d, snap.doc, offset) {
		if o.Disabled != "" {
			out = append(out, codeAction{Title: o.Title, Kind: "refactor.rewrite", Disabled: &codeActionDisabled{Reason: o.Disabled}})
			continue
		}
		args := map[string]any{"uri": snap.uri}
		switch o.Command {
		case session.CommandRewind:
			args["id"], args["message"], args["conversation"], args["overwrite"] = o.ID, o.Message, o.Conversation, o.Overwrite
		case session.CommandBranch:
			args["message"] = o.Message
		}
		out = append(out, codeAction{Title: o.Title, Kind: "refactor.rewrite",
			Command: &protocol.Command{Title: o.Title, Command: o.Command, Arguments: []interface{}{args}}})
	}
	return out
}

// approveWith is the edit that approves the placeholder of id and adds
// words after the status (`status=approved sandbox=off`); only for a
// `status=WORD` header, where the words read as tokens.
func approveWith(doc *chatdoc.Document, id, words string) ([]chatdoc.TextEdit, error) {
	r := doc.ToolResult(id)
	e, err := chatdoc.SetStatus(doc, id, chatdoc.StatusApproved)
	if err != nil || r == nil || len(e) != 1 {
		return nil, fmt.Errorf("no status word to extend")
	}
	sp := r.StatusSpan()
	if e[0].Span != sp || sp.Start < len("status=") || doc.Slice(sp.Start-len("status="), sp.Start) != "status=" {
		return nil, fmt.Errorf("tool result %s has no status=WORD header", id)
	}
	e[0].NewText += words
	return e, nil
}

// allPendingActions are "Approve all N pending" and "Reject all N pending":
// the empty pending placeholders an approval can take effect on.
func (s *Server) allPendingActions(doc *chatdoc.Document, edit func([]chatdoc.TextEdit) *lspext.WorkspaceEdit) []codeAction {
	var approve, reject []chatdoc.TextEdit
	n := 0
	for _, r := range cycle.OpenPending(doc) {
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

func hasTitle(actions []codeAction, title string) bool {
	for _, a := range actions {
		if a.Title == title {
			return true
		}
	}
	return false
}

// quickFix is a diagnostic's fix; insertsPlaceholders marks the fix of an
// unanswered tool use, which the server's own action supersedes.
type quickFix struct {
	codeAction
	insertsPlaceholders bool
}

// quickFixes offers the mechanical fix of each diagnostic under the range.
func (s *Server) quickFixes(ds *session.Doc, doc *chatdoc.Document, span chatdoc.Span, edit func([]chatdoc.TextEdit) *lspext.WorkspaceEdit) []quickFix {
	var out []quickFix
	var diags []chatdoc.Diagnostic
	if ds != nil {
		diags = s.sess.Diagnostics(ds, doc, false)
	} else {
		diags = frontmatter.Diagnostics(doc)
	}
	for _, d := range diags {
		if d.Span.End < span.Start || d.Span.Start > span.End {
			continue
		}
		for _, f := range surface.QuickFixes(doc, d, s.sess.Registry()) {
			out = append(out, quickFix{codeAction{Title: f.Title, Kind: "quickfix", IsPreferred: f.Preferred, Edit: edit(f.Edits)}, d.Code == cycle.CodeUnanswered})
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
