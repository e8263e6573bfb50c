package session

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/tools"
)

// docWorker runs autopilot passes for one document until it closes.
func (s *Session) docWorker(ds *Doc) {
	for range ds.kick {
		if !s.settings.effectiveFor(ds.path).Autopilot {
			continue
		}
		s.step(s.baseCtx, ds, false)
		s.continueChain(ds)
	}
}

// step is one pass of the cycle (SPEC §2), planned by package cycle and
// carried out here: insert placeholders, write resolutions, hand approvals
// back, start tools. force is chatls.advance.
func (s *Session) step(ctx context.Context, ds *Doc, force bool) cycle.Report {
	ds.cycleMu.Lock()
	defer ds.cycleMu.Unlock()
	if model, streaming := s.streaming(ds); streaming {
		// The answer is still coming: its tool calls wait for its end.
		doc, l := s.view(ds)
		r := cycle.Count(doc, l)
		r.Phase, r.Message = cycle.PhaseWait, cmp.Or(model, "the model")+" is answering"
		return r
	}
	if err := s.awaitToolDefinitions(ctx, ds); err != nil {
		return cycle.Report{Phase: cycle.PhaseWait, Message: err.Error()}
	}
	recovered := false
	if force {
		s.awaitWrites(ctx, ds)
		recovered = s.closeCutAnswer(ds)
	}
	s.recoverJobs(ds)
	categorized := s.categorize(ds, force)
	executed := s.resolve(ds, force, "")
	doc, l := s.view(ds)
	report := cycle.Count(doc, l).WithPhase(categorized, executed)
	if force && report.Phase == cycle.PhaseSend && sendReadiness(doc, l, nil, nil) == "" {
		// Phase 3: nothing left to do here, the question is written.
		if err := s.startSend(ctx, ds, true); err != nil {
			report.Message = err.Error()
			var refused *RefusedError
			if errors.As(err, &refused) {
				report.Message = refused.Reason // the reason, not the wire form
			}
		} else {
			report.Message = "sending"
		}
	}
	if recovered {
		report.Message = cycle.MsgCutAnswer
	}
	return report
}

// closeCutAnswer writes the abort marker and `@You:` after an answer a
// crash cut off (cycle.CutAnswer), when nothing streams into the document
// now, and reports whether it did. Only the next step does this, never
// opening (SPEC §2, §7).
func (s *Session) closeCutAnswer(ds *Doc) bool {
	if _, streaming := s.streaming(ds); streaming {
		return false
	}
	return s.editDocument(ds, "chatls: close the interrupted answer", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		if e, ok := cycle.CutAnswer(doc); ok {
			return []chatdoc.TextEdit{e}, nil
		}
		return nil, nil
	})
}

// sendAfterCut is chatls.send on a document that ends with an answer a
// crash cut off: the next step closes it (its calls get aborted results),
// and the send is refused, saying what to do. false: not such a document.
func (s *Session) sendAfterCut(ctx context.Context, ds *Doc) (bool, error) {
	if _, cut := cycle.CutAnswer(s.latest(ds)); !cut {
		return false, nil
	}
	if _, streaming := s.streaming(ds); streaming {
		return false, nil
	}
	s.step(ctx, ds, true)
	return true, s.refuseSend(cycle.MsgCutAnswer)
}

// streaming says whether an answer is streaming into the document, and
// from which model.
func (s *Session) streaming(ds *Doc) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds.send == nil {
		return "", false
	}
	return ds.send.model, true
}

// mode is how a pass of the document runs.
func (s *Session) mode(ds *Doc, force bool) cycle.Mode {
	return cycle.Mode{Force: force, Autopilot: s.settings.effectiveFor(ds.path).Autopilot}
}

// categorize inserts the placeholders cycle.Categorize decides (phase 1)
// and reports whether it inserted any.
func (s *Session) categorize(ds *Doc, force bool) bool {
	doc, l := s.view(ds)
	statuses, invalid, reused := cycle.Categorize(doc, l, s.mode(ds, force), s.facts(ds, doc, "autopilot"))
	if len(statuses) == 0 && len(invalid) == 0 && len(reused) == 0 {
		return false
	}
	s.mu.Lock()
	ds.ledger.Placed(doc, statuses)
	s.mu.Unlock()
	s.recordIssued(ds, doc, pendingIDs(statuses))
	dialect := chatdoc.DialectFence
	if s.settings.effectiveFor(ds.path).PlaceholderStyle == "suffix" {
		dialect = chatdoc.DialectSuffix
	}
	return s.editDocument(ds, "chatls: insert approval placeholders", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		return cycle.PlaceholderEdits(doc, statuses, invalid, reused, dialect)
	})
}

// resolve carries out cycle.Resolve (phase 2) for the whole document, or
// only the block of `only`, and reports whether it did anything.
func (s *Session) resolve(ds *Doc, force bool, only string) bool {
	doc, l := s.view(ds)
	plan := cycle.Resolve(doc, l, s.mode(ds, force), only, s.facts(ds, doc, ""))
	did := false
	for id, res := range plan.Results {
		if res.Record && s.journal != nil {
			if err := s.journal.Resolve(ds.journalKey(), id, res.Text); err != nil {
				s.log.Warn("execution journal write failed", zap.String("id", id), zap.Error(err))
			}
		}
	}
	if len(plan.Results) > 0 && s.editDocument(ds, "chatls: resolve tool results", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		return cycle.ResultEdits(doc, plan.Results)
	}) {
		did = true
	}
	if len(plan.Resets) > 0 && s.editDocument(ds, "chatls: approval needed again", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		return cycle.StatusEdits(doc, plan.Resets, chatdoc.StatusApproved, chatdoc.StatusPending)
	}) {
		did = true
		s.mu.Lock()
		ds.ledger.Reissued(doc, plan.Resets)
		s.mu.Unlock()
		s.recordIssued(ds, doc, slices.Collect(maps.Keys(plan.Resets)))
	}
	for _, id := range plan.Run {
		if s.startTool(ds, id) {
			did = true
		}
	}
	return did
}

// view is the document's snapshot and a copy of its ledger: a pass plans
// on them without holding Session.mu (the policy may run external
// resolvers), and records what it did on the ledger itself.
func (s *Session) view(ds *Doc) (*chatdoc.Document, *cycle.Ledger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ds.snap, ds.ledger.Clone()
}

// ledgerCopy is a copy of the document's ledger, for a request that plans
// on its captured snapshot.
func (s *Session) ledgerCopy(ds *Doc) *cycle.Ledger {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ds.ledger.Clone()
}

// latest is the document's newest snapshot.
func (s *Session) latest(ds *Doc) *chatdoc.Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ds.snap
}

// facts answer the cycle's questions about a snapshot of the document: the
// policy's verdict (logged under logSource when set) and the execution
// journal.
func (s *Session) facts(ds *Doc, doc *chatdoc.Document, logSource string) cycle.Facts {
	onTarget := tools.OnTarget{Registry: s.registry, Target: s.targetFor(ds, doc)}
	return cycle.Facts{
		Decide: func(u *chatdoc.ToolUse) approval.Verdict {
			return s.decide(ds, doc, u, logSource)
		},
		Journal: func(id string) cycle.JournalEntry { return s.journalEntry(ds, id) },
		Invalid: func(u *chatdoc.ToolUse) string {
			if _, known := onTarget.Lookup(u.Name); !known {
				return cycle.UnknownTool(u.Name, s.registry.Suggest(u.Name))
			}
			return onTarget.InvalidInputText(u.Name, u.ToolInputText(), chatdoc.DecodeInput)
		},
	}
}

// ranHere says whether the journal knows a tool of the document already ran.
func (s *Session) ranHere(ds *Doc) func(id string) bool {
	return cycle.Facts{Journal: func(id string) cycle.JournalEntry { return s.journalEntry(ds, id) }}.AlreadyRan
}

// journalEntry is what the execution journal knows about a tool of the
// document, in the cycle's terms.
func (s *Session) journalEntry(ds *Doc, id string) cycle.JournalEntry {
	if s.journal == nil {
		return cycle.JournalEntry{}
	}
	key := ds.journalKey()
	switch s.journal.State(key, id) {
	case journal.Running:
		return cycle.JournalEntry{State: cycle.StartedHere}
	case journal.RunningElsewhere:
		// Another chatls process runs it. To the cycle it may start: the
		// executor's journal start refuses it, waits for that process's
		// result and has the block resolved from the journal.
		return cycle.JournalEntry{}
	case journal.Interrupted:
		return cycle.JournalEntry{State: cycle.Interrupted}
	case journal.Finished:
		rec, _ := s.journal.Recorded(key, id)
		return cycle.JournalEntry{State: cycle.Finished, Text: rec.Text, IsError: rec.IsError, Known: rec.Known,
			Resolution: rec.Kind == journal.KindResolution, Finished: rec.Time, Started: rec.Started}
	}
	return cycle.JournalEntry{}
}

// resolveOnly resolves or starts one block as chatls.advance would.
func (s *Session) resolveOnly(ds *Doc, id string) bool {
	s.awaitWrites(s.baseCtx, ds)
	return s.resolve(ds, true, id)
}

// awaitWrites lets results that are being written land before a forced
// pass looks at the document, so it sees them, not their placeholders.
// Bounded: a client that never answers must not block chatls.advance.
func (s *Session) awaitWrites(ctx context.Context, ds *Doc) {
	s.mu.Lock()
	idle := ds.writesIdle
	s.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	case <-time.After(EditReplyTimeout):
	}
}

// awaitToolDefinitions blocks a pass until the tools its document uses
// that may still come from a loading source (custom.Set.MayProvide) are
// known, or the document's tools.defaultTimeout passes (SPEC §5 (c)). A
// document whose tools are all known (built-ins, say) never waits. It
// fails only when ctx itself ends (the request was cancelled).
func (s *Session) awaitToolDefinitions(ctx context.Context, ds *Doc) error {
	names := s.awaitedTools(ds)
	if len(names) == 0 {
		return nil
	}
	s.scheduleDiagnostics(ds)
	defer s.scheduleDiagnostics(ds)
	wait, cancel := context.WithTimeout(ctx, s.settings.defaultTimeout(ds.path))
	defer cancel()
	if err := s.toolSet.WaitFor(wait, names...); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.log.Warn("tool definitions did not load in time; going on without them", zap.Strings("tools", names), zap.Error(err))
	}
	return nil
}

// awaitedTools are the tools of the document's open calls (no result yet,
// or a placeholder) that a loading tool source may still provide.
func (s *Session) awaitedTools(ds *Doc) []string {
	doc := s.latest(ds)
	seen := map[string]bool{}
	var names []string
	for _, u := range doc.ToolUses() {
		if r := doc.ToolResult(u.ID); (r == nil || r.IsPlaceholder()) && !seen[u.Name] {
			seen[u.Name] = true
			if s.toolSet.MayProvide(u.Name) {
				names = append(names, u.Name)
			}
		}
	}
	return names
}

// journalKey names the document in the execution journal.
func (ds *Doc) journalKey() string {
	if ds.path != "" {
		return ds.path
	}
	return ds.uri
}
