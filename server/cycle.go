package server

import (
	"context"
	"strings"

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
		if !s.settings.effective().Autopilot {
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

	phase := ""
	if s.categorize(ds, force) {
		phase = "categorize"
	}
	if s.resolve(ds, force, "") && phase == "" {
		phase = "execute"
	}
	report := s.report(ds)
	if phase == "" {
		switch {
		case report.Running > 0 || report.Pending > 0:
			phase = "wait"
		default:
			phase = "send"
		}
	}
	report.Phase = phase
	if phase == "send" {
		report.Message = "ready to send"
	}
	return report
}

// report counts what is left to do in the current snapshot.
func (s *Server) report(ds *docState) stepReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := stepReport{Running: len(ds.running)}
	unanswered := 0
	for _, u := range ds.snap.ToolUses {
		if ds.snap.ToolResult(u.ID) == nil && u.Valid() {
			unanswered++
		}
	}
	for _, res := range ds.snap.ToolResults {
		if res.IsPlaceholder() && ds.running[res.ID] == nil {
			r.Pending++
		}
	}
	r.Ready = r.Pending == 0 && r.Running == 0 && unanswered == 0
	return r
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
	autopilot := s.settings.effective().Autopilot
	statuses := map[string]chatdoc.Status{}
	for i, m := range doc.Messages {
		if m.Role != "Assistant" || len(m.ToolUses) == 0 {
			continue
		}
		if !force && !(autopilot && messageComplete(doc, i)) {
			continue
		}
		for _, u := range m.ToolUses {
			if !u.Valid() || doc.ToolResult(u.ID) != nil {
				continue
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
	if s.settings.effective().PlaceholderStyle == "suffix" {
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
// is still unanswered in doc, grouped by Assistant message.
func placeholderEdits(doc *chatdoc.Document, statuses map[string]chatdoc.Status, dialect chatdoc.Dialect) ([]chatdoc.TextEdit, error) {
	var edits []chatdoc.TextEdit
	for _, m := range doc.Messages {
		var reqs []chatdoc.PlaceholderRequest
		for _, u := range m.ToolUses {
			st, ok := statuses[u.ID]
			if ok && doc.ToolResult(u.ID) == nil {
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
}

// resolve handles every placeholder the step may touch (SPEC §2 phase 2):
// fixed texts for denied/rejected/aborted, user-filled blocks, interrupted
// tools, and starts approved tools. It reports whether it did anything.
func (s *Server) resolve(ds *docState, force bool, only string) bool {
	_, doc, _, _ := s.current(ds.uri)
	if doc == nil {
		return false
	}
	texts := map[string]resolution{}
	resets := map[string]bool{}
	var toRun []string
	for _, r := range doc.ToolResults {
		if !r.IsPlaceholder() || (only != "" && r.ID != only) {
			continue
		}
		s.mu.Lock()
		busy := ds.running[r.ID] != nil || ds.finished[r.ID]
		touched := ds.touched[r.ID]
		revoked := ds.revoked[r.ID]
		approvedHash, userApproved := ds.userApproved[r.ID]
		s.mu.Unlock()
		if busy || (!force && !touched) {
			continue
		}
		u := doc.ToolUse(r.ID)
		if u == nil {
			continue // an orphan placeholder: diagnosed, never run
		}
		if s.journal != nil && s.journal.Interrupted(ds.journalKey(), r.ID) {
			texts[r.ID] = resolution{journal.StoppedText, true}
			continue
		}
		filled := strings.TrimSpace(r.Content) != ""
		switch r.Status {
		case chatdoc.StatusDenied:
			texts[r.ID] = resolution{textDenied, true}
		case chatdoc.StatusAborted:
			texts[r.ID] = resolution{abortText(doc, u), true}
		case chatdoc.StatusRejected:
			if filled {
				texts[r.ID] = resolution{r.Content, true}
			} else {
				texts[r.ID] = resolution{textRejected, true}
			}
		case chatdoc.StatusPending, chatdoc.StatusApproved:
			if filled {
				// Content-overwrite protection: the user's text is the result.
				if force {
					texts[r.ID] = resolution{r.Content, false}
				}
				continue
			}
			v := s.decide(ds, doc, u, "")
			if v.Decision == approval.Deny {
				texts[r.ID] = resolution{textDenied, true} // a policy deny always wins
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
	if len(texts) > 0 {
		if s.editDocument(ds, "chatls: resolve tool results", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			return resolutionEdits(doc, texts)
		}) {
			did = true
			s.mu.Lock()
			for id := range texts {
				ds.finished[id] = true
			}
			s.mu.Unlock()
			for id := range texts {
				if s.journal != nil {
					_ = s.journal.Resolve(ds.journalKey(), id)
				}
			}
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

// resolveOnly resolves or starts one block as chatls.advance would.
func (s *Server) resolveOnly(ds *docState, id string) bool {
	return s.resolve(ds, true, id)
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

// awaitToolDefinitions blocks a step until async tool sources are ready or
// their timeout passes (SPEC §5 (c)).
// It fails only when ctx itself ends (the request was cancelled).
func (s *Server) awaitToolDefinitions(ctx context.Context, ds *docState) error {
	if s.registry.Ready() {
		return nil
	}
	s.scheduleDiagnostics(ds)
	defer s.scheduleDiagnostics(ds)
	wait, cancel := context.WithTimeout(ctx, s.settings.defaultTimeout())
	defer cancel()
	if err := s.registry.WaitReady(wait); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.log.Warn("tool definitions did not all load in time; going on without them", zap.Error(err))
	}
	return nil
}

// journalKey names the document in the execution journal.
func (ds *docState) journalKey() string {
	if ds.path != "" {
		return ds.path
	}
	return ds.uri
}
