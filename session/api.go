package session

import (
	"context"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/tools"
)

// The session's commands on one document (SPEC §3, §7), for every editor.

// Advance is the next step (chatls.advance): placeholders, resolutions,
// approved calls started, and the send once the question is written.
func (s *Session) Advance(ctx context.Context, ds *Doc) cycle.Report { return s.step(ctx, ds, true) }

// Send sends the conversation (chatls.send) and returns once the request
// has started; a refusal is a *RefusedError. A document ending with an
// answer a crash cut off is closed first, and the send refused.
func (s *Session) Send(ctx context.Context, ds *Doc) error {
	s.recoverJobs(ds) // the model reads that a job was lost, not silence
	if cut, err := s.sendAfterCut(ctx, ds); cut {
		return err
	}
	return s.startSend(ctx, ds, true)
}

// CancelSend stops the request in flight (chatls.cancel without an id);
// false when there is none. It returns once the request has ended.
func (s *Session) CancelSend(ds *Doc) bool { return s.cancelSend(ds) }

// CancelTool stops one call, queued, starting or running; false when
// nothing runs it.
func (s *Session) CancelTool(ds *Doc, id string) bool { return s.cancelTool(ds, id) }

// Explain is the policy's decision on a call of doc, with its trace.
func (s *Session) Explain(ds *Doc, doc *chatdoc.Document, u *chatdoc.ToolUse) approval.Verdict {
	return s.decide(ds, doc, u, "")
}

// UsageTotals answers chatls.usage: the document's and the session's
// totals from usage.jsonl.
func (s *Session) UsageTotals(ds *Doc) (any, error) { return s.usageTotals(ds) }

// Docs are the open documents.
func (s *Session) Docs() []*Doc { return s.openDocs() }

// Latest is the document's newest snapshot.
func (s *Session) Latest(ds *Doc) *chatdoc.Document { return s.latest(ds) }

// Ledger is a copy of the document's ledger, to plan on a snapshot.
func (s *Session) Ledger(ds *Doc) *cycle.Ledger { return s.ledgerCopy(ds) }

// Actions are the cycle's actions on the call u (r its result, or nil) in
// doc, as code actions and lenses offer them.
func (s *Session) Actions(ds *Doc, doc *chatdoc.Document, r *chatdoc.ToolResult, u *chatdoc.ToolUse) []cycle.Action {
	return cycle.ActionsFor(doc, s.ledgerCopy(ds), r, u, s.facts(ds, doc, ""))
}

// Preview is the one-line description of a call (SPEC §3 formats), on the
// target it runs on, as long as the document's inlayHints.maxLength allows.
func (s *Session) Preview(ds *Doc, doc *chatdoc.Document, u *chatdoc.ToolUse) string {
	return s.preview(s.targetFor(ds, doc), u, s.settings.effectiveFor(ds.path).InlayHintsMaxLength)
}

// SuggestRule is the rule "Always allow" offers for a call, and whether it
// can go into the workspace's .chatls.toml (false: that file would not
// count, the workspace is not trusted; it goes to the user config).
func (s *Session) SuggestRule(ds *Doc, u *chatdoc.ToolUse) (rule string, workspace bool) {
	root := s.workspaceRoot(ds.path)
	rule = approval.SuggestRule(approval.Call{Tool: u.Name, Input: u.ToolInput(), DocPath: ds.path, WorkspaceRoot: root})
	return rule, s.settings.store.WorkspaceApplies(root)
}

// Registry is the tools the session offers.
func (s *Session) Registry() *tools.Registry { return s.registry }

// Running says whether a call of the document runs now (queued or
// running, not writing its result).
func (s *Session) Running(ds *Doc, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	run, ok := ds.ledger.Run(id)
	return ok && run.Phase != cycle.Writing
}

// AnswerLens is the line above a response of this session: its usage.
type AnswerLens struct {
	At    chatdoc.Span // the `@Assistant:` marker
	Title string
}

// AnswerLenses are the lenses of this session's responses in doc.
func (s *Session) AnswerLenses(ds *Doc, doc *chatdoc.Document) []AnswerLens {
	var out []AnswerLens
	for _, a := range s.answerLenses(ds, doc) {
		out = append(out, AnswerLens{At: chatdoc.Span{Start: a.at, End: a.at + len(assistantMarker)}, Title: a.lensTitle()})
	}
	return out
}
