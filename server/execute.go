package server

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
)

// gate is the execution invariant of SPEC §2, checked on the newest snapshot
// at the moment a tool starts: the placeholder is still approved and empty,
// and either the trusted policy approves this exact call or the user
// approved this ID in this session for this exact input. A policy deny wins.
func (s *Server) gate(ds *docState) func(id string) (source string, verdict approval.Verdict, ok bool) {
	return func(id string) (string, approval.Verdict, bool) {
		_, doc, _, _ := s.current(ds.uri)
		if doc == nil {
			return "", approval.Verdict{}, false
		}
		r, u := doc.ToolResult(id), doc.ToolUse(id)
		if r == nil || u == nil || r.Status != chatdoc.StatusApproved || strings.TrimSpace(r.Content) != "" || !u.Valid() {
			return "", approval.Verdict{}, false
		}
		v := s.decide(ds, doc, u, "")
		switch v.Decision {
		case approval.Deny:
			return "", v, false
		case approval.Approve:
			return "rule", v, true
		}
		s.mu.Lock()
		h, ok := ds.userApproved[id]
		s.mu.Unlock()
		if ok && h == inputHash(u) {
			return "user edit", v, true
		}
		return "", v, false
	}
}

// startTool launches an approved tool in the background. It reports whether
// the tool was started.
func (s *Server) startTool(ds *docState, id string) bool {
	if s.baseCtx.Err() != nil {
		return false
	}
	s.mu.Lock()
	if ds.running[id] != nil || ds.finished[id] || ds.closed {
		s.mu.Unlock()
		return false
	}
	rs := &runState{id: id, started: time.Now()}
	ds.running[id] = rs
	s.mu.Unlock()
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		s.runTool(ds, rs)
	}()
	return true
}

func (s *Server) runTool(ds *docState, rs *runState) {
	defer func() {
		s.markFinished(ds, rs.id, false)
		s.refreshHints()
		s.scheduleDiagnostics(ds)
	}()
	release, err := s.acquireSlot()
	if err != nil {
		return
	}
	defer release()

	source, verdict, ok := s.gate(ds)(rs.id)
	_, doc, _, _ := s.current(ds.uri)
	if !ok {
		if verdict.Decision == approval.Deny {
			s.markFinished(ds, rs.id, true)
			s.writeResult(ds, rs.id, tools.Result{Text: textDenied, IsError: true})
		}
		return
	}
	u := doc.ToolUse(rs.id)
	if s.journal == nil {
		// Without the journal "at most once, even across a crash" cannot hold.
		s.markFinished(ds, rs.id, true)
		s.writeResult(ds, rs.id, tools.Result{Text: textNoJournal, IsError: true})
		return
	}
	if err := s.journal.Start(ds.journalKey(), rs.id); err != nil {
		s.log.Warn("refusing to run a tool twice", zap.String("id", rs.id), zap.Error(err))
		return
	}
	rs.name = u.Name
	rs.started = time.Now()
	s.refreshHints()
	s.scheduleDiagnostics(ds)
	progress := s.beginProgress(ds, rs, u)
	stopTicker := s.tickWhileRunning()
	defer stopTicker()

	env := s.toolEnv(ds)
	env.Progress = func(p tools.Progress) {
		s.mu.Lock()
		rs.last = p.LastLine
		s.mu.Unlock()
		progress.report(p)
	}
	started := time.Now()
	res := s.runner.Run(s.baseCtx, tools.Call{ID: rs.id, Name: u.Name, Input: u.Input}, env)
	ended := time.Now()
	progress.end(res)
	if res.Cancelled {
		res.Text = textCancelled
		res.IsError = true
	}
	if res.Text == "" {
		res.Text = textNoOutput
	}
	if s.baseCtx.Err() != nil {
		return // shutting down: leave the journal entry unfinished, never rerun
	}
	// Finished before the write so counts and hints never show a tool as
	// running while its result is already in the document.
	s.markFinished(ds, rs.id, true)
	s.writeResult(ds, rs.id, res)
	_ = s.journal.Finish(ds.journalKey(), rs.id)
	s.logRun(ds, u, verdict, source, started, ended, res)
}

// markFinished removes a tool from the running set; done also records that
// its result exists, so no later step starts it again.
func (s *Server) markFinished(ds *docState, id string, done bool) {
	s.mu.Lock()
	delete(ds.running, id)
	if done {
		ds.finished[id] = true
	}
	s.mu.Unlock()
}

// writeResult replaces the tool's placeholder with its result, located by ID
// in the newest snapshot. If the user typed into the block meanwhile, their
// text wins and the result goes to the log only.
func (s *Server) writeResult(ds *docState, id string, res tools.Result) {
	text := res.Text
	s.editDocument(ds, "chatls: tool result", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		r := doc.ToolResult(id)
		if r == nil || !r.IsPlaceholder() {
			return nil, nil
		}
		if strings.TrimSpace(r.Content) != "" {
			s.log.Warn("the user wrote into a running tool's block; keeping their text", zap.String("id", id))
			return nil, nil
		}
		return chatdoc.ReplaceWithResult(doc, id, text, res.IsError)
	})
}

// acquireSlot bounds parallel executions by tools.maxConcurrent.
func (s *Server) acquireSlot() (func(), error) {
	sem := s.settings.semaphore()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-s.baseCtx.Done():
		return nil, s.baseCtx.Err()
	}
}

// toolEnv is where a document's tools run.
func (s *Server) toolEnv(ds *docState) tools.Env {
	eff := s.settings.effective()
	dir := filepath.Dir(ds.path)
	root := s.workspaceRoot(ds.path)
	if ds.path == "" {
		dir = root
	}
	tmp := os.TempDir()
	writable := append([]string{root, dir, tmp}, eff.Sandbox.Writable...)
	return tools.Env{
		Dir:            dir,
		WorkspaceRoot:  root,
		Writable:       writable,
		Sandbox:        tools.SandboxConfig{Enabled: eff.Sandbox.Enabled && s.sandboxUnavailable() == "", Writable: writable, Network: eff.Sandbox.Network, Bwrap: eff.Sandbox.Bwrap},
		TempDir:        tmp,
		BashCwd:        eff.BashCwd,
		DefaultTimeout: eff.DefaultTimeout,
		BashTimeout:    eff.BashTimeout,
	}
}

// logRun writes the execution to the decision log.
func (s *Server) logRun(ds *docState, u *chatdoc.ToolUse, v approval.Verdict, source string, start, end time.Time, res tools.Result) {
	if s.decisions == nil {
		return
	}
	entry := approval.LogEntry{
		Time: end, Document: ds.uri, ToolID: u.ID, Tool: u.Name, InputHash: inputHash(u),
		Decision: string(v.Decision), Source: source, Start: &start, End: &end,
		ExitStatus: res.ExitCode, Truncated: res.Truncated, ApprovedBy: source,
	}
	if err := s.decisions.Write(entry); err != nil {
		s.log.Warn("decision log write failed", zap.Error(err))
	}
}

// cancelTool stops a running tool (chatls.cancel, progress cancel).
func (s *Server) cancelTool(id string) bool {
	return s.runner.Cancel(id)
}

// tickWhileRunning refreshes inlay hints every second so a running call's
// elapsed time stays current even when it prints nothing.
func (s *Server) tickWhileRunning() (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.refreshHints()
			case <-done:
				return
			case <-s.baseCtx.Done():
				return
			}
		}
	}()
	return func() { close(done) }
}
