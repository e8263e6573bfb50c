package server

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/journal"
)

// Fixed result texts (SPEC §1).
const (
	textDenied    = "The tool was denied by a policy."
	textRejected  = "This tool has been rejected by the user."
	textAborted   = "Response interrupted by the user."
	textCancelled = "User aborted tool execution."
	textNoOutput  = "(no output)"
	textNoJournal = "chatls cannot record tool executions (see its log: the state directory is not writable), so the tool was not run."
	// textRecordedNote follows the recorded output of a tool that finished
	// earlier (this session or before a restart) when its placeholder is
	// found again: the tool runs at most once per ID (SPEC §2).
	textRecordedNote = "[chatls: recorded result of the run that finished at %s; the tool was not run again.]"
	// textRanBefore is written when the journal knows the tool finished but
	// not its output (a journal from an older chatls).
	textRanBefore = "This tool already ran (finished at %s), but its output was not recorded; chatls did not run it again."
	// textOutputSaved follows the user's text in a block they wrote into
	// while its tool ran: their text is the result, the output is kept.
	textOutputSaved = "[chatls: you wrote in this block while the tool ran, so your text is the result; the tool's output is saved in %s]"
	// textOutputInline replaces textOutputSaved when no file can be written.
	textOutputInline = "[chatls: you wrote in this block while the tool ran, so your text is the result; the tool's output could not be saved to a file, so here it is:]"
	// msgDuplicateIDs is advance's message while tool uses share an ID.
	msgDuplicateIDs = "tool uses share the ID %s: nothing runs for it until each tool use has its own ID"
)

// stepReport is chatls.advance's answer.
type stepReport struct {
	Phase   string `json:"phase"` // categorize | execute | wait | send
	Pending int    `json:"pending"`
	Running int    `json:"running"`
	Ready   bool   `json:"ready"`
	Message string `json:"message,omitempty"`
}

// docWorker runs autopilot steps for one document until it closes.
func (s *Server) docWorker(ds *docState) {
	for range ds.kick {
		if !s.settings.effectiveFor(ds.path).Autopilot {
			continue
		}
		s.step(s.baseCtx, ds, false)
	}
}

// step is one pass of the cycle (SPEC §2). force is chatls.advance: it
// categorizes tool uses that were already in the file and resolves blocks
// that autopilot leaves to the user.
func (s *Server) step(ctx context.Context, ds *docState, force bool) stepReport {
	ds.cycleMu.Lock()
	defer ds.cycleMu.Unlock()
	if err := s.awaitToolDefinitions(ctx, ds); err != nil {
		return stepReport{Phase: "wait", Message: err.Error()}
	}
	if force {
		s.awaitWrites(ctx, ds)
	}

	phase := ""
	if s.categorize(ds, force) {
		phase = "categorize"
	}
	if s.resolve(ds, force, "") && phase == "" {
		phase = "execute"
	}
	report := s.report(ds)
	if phase == "" {
		phase = "wait"
		if report.Ready {
			phase = "send"
		}
	}
	report.Phase = phase
	if phase == "send" {
		report.Message = "ready to send"
	}
	return report
}

// report counts what is left to do in the current snapshot. Results being
// written count as running; placeholders of duplicated IDs, orphans and
// second results are diagnosed, not pending.
func (s *Server) report(ds *docState) stepReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc := ds.snap
	dups := duplicateIDs(doc)
	r := stepReport{Running: len(ds.running) + len(ds.writing)}
	unanswered := 0
	for _, u := range doc.ToolUses {
		if !dups[u.ID] && doc.ToolResult(u.ID) == nil && u.Valid() {
			unanswered++
		}
	}
	for _, res := range doc.ToolResults {
		if !res.IsPlaceholder() || doc.ToolResult(res.ID) != res || doc.ToolUse(res.ID) == nil || dups[res.ID] {
			continue
		}
		if ds.running[res.ID] == nil && !ds.writing[res.ID] {
			r.Pending++
		}
	}
	r.Ready = r.Pending == 0 && r.Running == 0 && unanswered == 0 && len(dups) == 0
	if len(dups) > 0 {
		ids := make([]string, 0, len(dups))
		for id := range dups {
			ids = append(ids, "`"+id+"`")
		}
		sort.Strings(ids)
		r.Message = fmt.Sprintf(msgDuplicateIDs, strings.Join(ids, ", "))
	}
	return r
}

// duplicateIDs are the IDs more than one tool use has. The parser reports
// each later use; none of them gets a placeholder or runs: which call the
// user approved would be ambiguous.
func duplicateIDs(doc *chatdoc.Document) map[string]bool {
	var dups map[string]bool
	for _, d := range doc.Diagnostics {
		if d.Code == chatdoc.CodeDuplicateToolID && d.ToolID != "" {
			if dups == nil {
				dups = map[string]bool{}
			}
			dups[d.ToolID] = true
		}
	}
	return dups
}

// messageComplete says whether autopilot may categorize an Assistant
// message: all its tool-use fences closed and valid, and a later role marker.
func messageComplete(doc *chatdoc.Document, index int) bool {
	m := doc.Messages[index]
	for _, u := range m.ToolUses {
		if !u.Valid() || u.Fence == nil || !u.Fence.Closed {
			return false
		}
	}
	return index+1 < len(doc.Messages)
}

// categorize inserts placeholders for unanswered tool uses with the status
// the policy gives (SPEC §2 phase 1). It reports whether it inserted any.
func (s *Server) categorize(ds *docState, force bool) bool {
	_, doc, _, _ := s.current(ds.uri)
	if doc == nil {
		return false
	}
	eff := s.settings.effectiveFor(ds.path)
	autopilot := eff.Autopilot
	dups := duplicateIDs(doc)
	statuses := map[string]chatdoc.Status{}
	for i, m := range doc.Messages {
		if m.Role != "Assistant" || len(m.ToolUses) == 0 {
			continue
		}
		if !force && !(autopilot && messageComplete(doc, i)) {
			continue
		}
		for _, u := range m.ToolUses {
			if !u.Valid() || doc.ToolResult(u.ID) != nil || dups[u.ID] {
				continue // duplicated IDs keep their diagnostic and get nothing
			}
			s.mu.Lock()
			wasThere := ds.openIDs[u.ID]
			s.mu.Unlock()
			if !force && wasThere {
				continue // tool uses already in the file wait for chatls.advance
			}
			if m.Abort != nil {
				statuses[u.ID] = chatdoc.StatusAborted
				continue
			}
			v := s.decide(ds, doc, u, "autopilot")
			switch v.Decision {
			case approval.Approve:
				statuses[u.ID] = chatdoc.StatusApproved
			case approval.Deny:
				statuses[u.ID] = chatdoc.StatusDenied
			default:
				statuses[u.ID] = chatdoc.StatusPending
			}
		}
	}
	if len(statuses) == 0 {
		return false
	}
	dialect := chatdoc.DialectFence
	if eff.PlaceholderStyle == "suffix" {
		dialect = chatdoc.DialectSuffix
	}
	s.mu.Lock()
	for id := range statuses {
		ds.touched[id] = true
		if u := doc.ToolUse(id); u != nil && statuses[id] == chatdoc.StatusPending {
			ds.issued[id] = inputHash(u)
		}
	}
	s.mu.Unlock()
	ok := s.editDocument(ds, "chatls: insert approval placeholders", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		return placeholderEdits(doc, statuses, dialect)
	})
	return ok
}

// placeholderEdits builds the insertions for every tool use in statuses that
// is still unanswered in doc, grouped by Assistant message. An ID that
// became duplicated since categorizing gets none: one placeholder per ID.
func placeholderEdits(doc *chatdoc.Document, statuses map[string]chatdoc.Status, dialect chatdoc.Dialect) ([]chatdoc.TextEdit, error) {
	var edits []chatdoc.TextEdit
	dups := duplicateIDs(doc)
	for _, m := range doc.Messages {
		var reqs []chatdoc.PlaceholderRequest
		for _, u := range m.ToolUses {
			st, ok := statuses[u.ID]
			if ok && doc.ToolResult(u.ID) == nil && !dups[u.ID] {
				reqs = append(reqs, chatdoc.PlaceholderRequest{ID: u.ID, Status: st})
			}
		}
		if len(reqs) == 0 {
			continue
		}
		e, err := chatdoc.InsertPlaceholders(doc, reqs, dialect)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	return edits, nil
}

// resolution is a finished result the server writes without running anything.
type resolution struct {
	text    string
	isError bool
	// journal records the text as the tool's final result (interrupted runs).
	journal bool
}

// resolve handles every placeholder the step may touch (SPEC §2 phase 2):
// fixed texts for denied/rejected/aborted, user-filled blocks, tools the
// journal knows (interrupted or finished: never run again), and starts
// approved tools. It reports whether it did anything.
func (s *Server) resolve(ds *docState, force bool, only string) bool {
	_, doc, _, _ := s.current(ds.uri)
	if doc == nil {
		return false
	}
	dups := duplicateIDs(doc)
	texts := map[string]resolution{}
	resets := map[string]bool{}
	var toRun []string
	for _, r := range doc.ToolResults {
		if !r.IsPlaceholder() || (only != "" && r.ID != only) || doc.ToolResult(r.ID) != r {
			continue // a second result for an ID never counts
		}
		s.mu.Lock()
		busy := ds.running[r.ID] != nil || ds.writing[r.ID]
		touched := ds.touched[r.ID]
		revoked := ds.revoked[r.ID]
		approvedHash, userApproved := ds.userApproved[r.ID]
		s.mu.Unlock()
		if busy || (!force && !touched) {
			continue
		}
		u := doc.ToolUse(r.ID)
		if u == nil || dups[r.ID] {
			continue // an orphan placeholder or an ambiguous ID: diagnosed, never run
		}
		filled := strings.TrimSpace(r.Content) != ""
		if filled && (r.Status == chatdoc.StatusPending || r.Status == chatdoc.StatusApproved) {
			// Content-overwrite protection: the user's text is the result,
			// whatever else is known about the tool.
			if force {
				texts[r.ID] = resolution{text: r.Content}
			}
			continue
		}
		if res, known := s.journalResolution(ds, r.ID); known {
			if res != nil {
				texts[r.ID] = *res
			}
			continue
		}
		switch r.Status {
		case chatdoc.StatusDenied:
			texts[r.ID] = resolution{text: textDenied, isError: true}
		case chatdoc.StatusAborted:
			texts[r.ID] = resolution{text: abortText(doc, u), isError: true}
		case chatdoc.StatusRejected:
			if filled {
				texts[r.ID] = resolution{text: r.Content, isError: true}
			} else {
				texts[r.ID] = resolution{text: textRejected, isError: true}
			}
		case chatdoc.StatusPending, chatdoc.StatusApproved:
			v := s.decide(ds, doc, u, "")
			if v.Decision == approval.Deny {
				texts[r.ID] = resolution{text: textDenied, isError: true} // a policy deny always wins
				continue
			}
			if r.Status != chatdoc.StatusApproved {
				continue // pending: waits for the user
			}
			switch {
			case v.Decision == approval.Approve:
				toRun = append(toRun, r.ID)
			case userApproved && approvedHash == inputHash(u):
				toRun = append(toRun, r.ID)
			case revoked || force:
				// Approved without a valid approval of this session: hand the
				// decision back to the user.
				resets[r.ID] = true
			}
		}
	}
	did := false
	for id, res := range texts {
		if res.journal {
			// Recorded before the edit: if it never lands, the next pass
			// writes the same text again, and the tool still never runs.
			if err := s.journal.Resolve(ds.journalKey(), id, res.text); err != nil {
				s.log.Warn("execution journal write failed", zap.String("id", id), zap.Error(err))
			}
		}
	}
	if len(texts) > 0 {
		if s.editDocument(ds, "chatls: resolve tool results", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			return resolutionEdits(doc, texts)
		}) {
			did = true
		}
	}
	if len(resets) > 0 {
		if s.editDocument(ds, "chatls: approval needed again", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			return statusEdits(doc, resets, chatdoc.StatusApproved, chatdoc.StatusPending)
		}) {
			did = true
			s.mu.Lock()
			for id := range resets {
				delete(ds.revoked, id)
				if u := doc.ToolUse(id); u != nil {
					ds.issued[id] = inputHash(u)
				}
			}
			s.mu.Unlock()
		}
	}
	for _, id := range toRun {
		if s.startTool(ds, id) {
			did = true
		}
	}
	return did
}

// journalState is what the execution journal knows about a tool of the
// document (journal.Unknown without a journal), for diagnostics and hovers.
func (s *Server) journalState(ds *docState, id string) journal.State {
	if s.journal == nil {
		return journal.Unknown
	}
	return s.journal.State(ds.journalKey(), id)
}

// journalResolution is the result for a tool the execution journal already
// knows: known is true when the tool must not start. res is nil while it is
// running in this process (maybe for another open copy of the document).
func (s *Server) journalResolution(ds *docState, id string) (res *resolution, known bool) {
	if s.journal == nil {
		return nil, false
	}
	key := ds.journalKey()
	switch s.journalState(ds, id) {
	case journal.Running:
		return nil, true
	case journal.Interrupted:
		return &resolution{text: journal.StoppedText, isError: true, journal: true}, true
	case journal.Finished:
		rec, _ := s.journal.Recorded(key, id)
		when := rec.Time.UTC().Format(time.RFC3339)
		switch {
		case !rec.Known:
			return &resolution{text: fmt.Sprintf(textRanBefore, when), isError: true}, true
		case rec.Kind == journal.KindResolution:
			return &resolution{text: rec.Text, isError: rec.IsError}, true
		}
		return &resolution{text: rec.Text + "\n\n" + fmt.Sprintf(textRecordedNote, when), isError: rec.IsError}, true
	}
	return nil, false
}

// resolveOnly resolves or starts one block as chatls.advance would.
func (s *Server) resolveOnly(ds *docState, id string) bool {
	s.awaitWrites(s.baseCtx, ds)
	return s.resolve(ds, true, id)
}

// awaitWrites lets results that are being written land before a forced
// step looks at the document, so the step sees them, not their placeholders.
// Bounded: a client that never answers must not block chatls.advance.
func (s *Server) awaitWrites(ctx context.Context, ds *docState) {
	s.mu.Lock()
	idle := ds.writesIdle
	s.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	case <-time.After(applyEditReplyTimeout):
	}
}

// resolutionEdits replaces each still-open placeholder in texts by its result.
func resolutionEdits(doc *chatdoc.Document, texts map[string]resolution) ([]chatdoc.TextEdit, error) {
	var edits []chatdoc.TextEdit
	for id, res := range texts {
		r := doc.ToolResult(id)
		if r == nil || !r.IsPlaceholder() {
			continue // already resolved: never write a result twice
		}
		e, err := chatdoc.ReplaceWithResult(doc, id, res.text, res.isError)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	return edits, nil
}

// statusEdits rewrites the status of each placeholder in ids that still has status from.
func statusEdits(doc *chatdoc.Document, ids map[string]bool, from, to chatdoc.Status) ([]chatdoc.TextEdit, error) {
	var edits []chatdoc.TextEdit
	for id := range ids {
		r := doc.ToolResult(id)
		if r == nil || r.Status != from {
			continue
		}
		e, err := chatdoc.SetStatus(doc, id, to)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	return edits, nil
}

// abortText is the abort marker's message of the tool use's Assistant message.
func abortText(doc *chatdoc.Document, u *chatdoc.ToolUse) string {
	if u.Message >= 0 && u.Message < len(doc.Messages) {
		if a := doc.Messages[u.Message].Abort; a != nil && strings.TrimSpace(a.Message) != "" {
			return strings.TrimSpace(a.Message)
		}
	}
	return textAborted
}

// awaitToolDefinitions blocks a step until the tools its document uses
// that may still come from a loading source (custom.Set.MayProvide) are
// known, or the document's tools.defaultTimeout passes (SPEC §5 (c)). A
// document whose tools are all known (built-ins alone, say) never waits.
// It fails only when ctx itself ends (the request was cancelled).
func (s *Server) awaitToolDefinitions(ctx context.Context, ds *docState) error {
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
func (s *Server) awaitedTools(ds *docState) []string {
	_, doc, _, _ := s.current(ds.uri)
	if doc == nil {
		return nil
	}
	seen := map[string]bool{}
	var names []string
	for _, u := range doc.ToolUses {
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
func (ds *docState) journalKey() string {
	if ds.path != "" {
		return ds.path
	}
	return ds.uri
}
