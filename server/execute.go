package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/journal"
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
		if r == nil || u == nil || r.Status != chatdoc.StatusApproved || strings.TrimSpace(r.Content) != "" || !u.Valid() || duplicateIDs(doc)[id] {
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
	if ds.running[id] != nil || ds.writing[id] || ds.closed {
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
		s.mu.Lock()
		delete(ds.running, rs.id)
		s.mu.Unlock()
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
			s.writeResult(ds, rs.id, tools.Result{Text: textDenied, IsError: true})
		}
		return
	}
	u := doc.ToolUse(rs.id)
	if s.journal == nil {
		// Without the journal "at most once, even across a crash" cannot hold.
		s.writeResult(ds, rs.id, tools.Result{Text: textNoJournal, IsError: true})
		return
	}
	key := ds.journalKey()
	if err := s.journal.Start(key, rs.id); errors.Is(err, journal.ErrStarted) {
		s.log.Warn("refusing to run a tool twice", zap.String("id", rs.id), zap.Error(err))
		return
	} else if err != nil {
		// The start is not on disk: running now could run it twice after a crash.
		s.log.Error("execution journal write failed; not running the tool", zap.String("id", rs.id), zap.Error(err))
		s.writeResult(ds, rs.id, tools.Result{Text: textNoJournal, IsError: true})
		return
	}
	s.mu.Lock()
	rs.name = u.Name
	rs.started = time.Now()
	s.mu.Unlock()
	s.refreshHints()
	s.scheduleDiagnostics(ds)
	progress := s.beginProgress(ds, rs, u)
	stopTicker := s.tickWhileRunning()
	defer stopTicker()

	env := s.toolEnv(ds, u.Name)
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
	if s.baseCtx.Err() != nil {
		// Shutting down: the journal entry stays unfinished, so a restarted
		// chatls writes StoppedText instead of running the tool again.
		s.logRun(ds, u, verdict, source, started, ended, res, true)
		return
	}
	if res.Cancelled {
		res.Text = textCancelled
		res.IsError = true
	}
	if res.Text == "" {
		res.Text = textNoOutput
	}
	// Recorded before the document edit: if the edit never lands (or the
	// document is reopened from an older copy), the recorded result is
	// written instead of running the tool again.
	if err := s.journal.Finish(key, rs.id, res.Text, res.IsError); err != nil {
		s.log.Warn("execution journal write failed", zap.String("id", rs.id), zap.Error(err))
	}
	s.logRun(ds, u, verdict, source, started, ended, res, false)
	s.writeResult(ds, rs.id, res)
}

// writeResult replaces the tool's placeholder with its result, located by ID
// in the newest snapshot. While it writes, the tool counts as writing, not
// running, so no step resolves the block meanwhile.
//
// If the user typed into the block while the tool ran, their text wins
// (content-overwrite protection, SPEC §2) and the block becomes a result
// carrying it; the tool's output is saved to a file and a note after the
// user's text says where, so neither is lost.
func (s *Server) writeResult(ds *docState, id string, res tools.Result) {
	s.mu.Lock()
	ds.beginWrite(id)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		ds.endWrite(id)
		s.mu.Unlock()
	}()
	note := ""
	s.editDocument(ds, "chatls: tool result", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		r := doc.ToolResult(id)
		if r == nil || !r.IsPlaceholder() {
			return nil, nil
		}
		if strings.TrimSpace(r.Content) == "" {
			return chatdoc.ReplaceWithResult(doc, id, res.Text, res.IsError)
		}
		if note == "" {
			note = s.keepOutput(ds, id, res)
		}
		return chatdoc.ReplaceWithResult(doc, id, strings.TrimRight(r.Content, "\r\n")+"\n\n"+note, r.Status == chatdoc.StatusRejected)
	})
}

// keepOutput saves the output of a tool whose block the user wrote into and
// returns the note that goes after their text.
func (s *Server) keepOutput(ds *docState, id string, res tools.Result) string {
	path := res.FullOutputPath
	if !res.Truncated || path == "" {
		var err error
		if path, err = saveOutput(os.TempDir(), id, res.Text); err != nil {
			s.log.Warn("cannot save a tool's output", zap.String("id", id), zap.Error(err))
			return textOutputInline + "\n\n" + res.Text
		}
	}
	s.showMessage(messageInfo, fmt.Sprintf("chatls: you wrote in the block of %s while it ran, so your text is its result; the tool's output is in %s", id, path))
	return fmt.Sprintf(textOutputSaved, path)
}

// saveOutput writes text to a new file in dir named after the tool ID.
func saveOutput(dir, id, text string) (string, error) {
	f, err := os.CreateTemp(dir, "chatls-output-"+safeFileName(id)+"-*.txt")
	if err != nil {
		return "", err
	}
	_, werr := f.WriteString(text)
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", werr
	}
	return f.Name(), nil
}

// safeFileName keeps letters, digits, '-' and '_' of an ID (at most 64).
func safeFileName(id string) string {
	b := []byte(id)
	if len(b) > 64 {
		b = b[:64]
	}
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
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

// toolEnv is where a document's tools run. The sandbox setting decides
// whether write/edit refuse paths outside the writable set (SPEC §5), with
// or without bubblewrap; only bash needs bubblewrap itself, and without it
// runs unsandboxed only for calls the user approved (the policy asks for
// every bash call then).
func (s *Server) toolEnv(ds *docState, tool string) tools.Env {
	eff := s.settings.effective()
	dir := filepath.Dir(ds.path)
	root := s.workspaceRoot(ds.path)
	if ds.path == "" {
		dir = root
	}
	tmp := os.TempDir()
	writable := append([]string{root, dir, tmp}, eff.Sandbox.Writable...)
	enabled := eff.Sandbox.Enabled
	if tool == "bash" && s.sandboxUnavailable() != "" {
		enabled = false
	}
	return tools.Env{
		Dir:            dir,
		WorkspaceRoot:  root,
		Writable:       writable,
		Sandbox:        tools.SandboxConfig{Enabled: enabled, Writable: writable, Network: eff.Sandbox.Network, Bwrap: eff.Sandbox.Bwrap},
		TempDir:        tmp,
		BashCwd:        eff.BashCwd,
		DefaultTimeout: eff.DefaultTimeout,
		BashTimeout:    eff.BashTimeout,
	}
}

// logInterrupted marks a run in the decision log that chatls stopped when it shut down.
const logInterrupted = "interrupted: chatls shut down while the tool ran; it will not run again"

// logRun writes an execution to the decision log (SPEC §4): the call, why
// it ran (the policy's rule or the user's approval edit, with the policy's
// trace), start, end, exit status and truncation. A run cut short by the
// server shutting down is logged too.
func (s *Server) logRun(ds *docState, u *chatdoc.ToolUse, v approval.Verdict, source string, start, end time.Time, res tools.Result, interrupted bool) {
	if s.decisions == nil {
		return
	}
	entry := approval.LogEntry{
		Time: end, Document: ds.uri, ToolID: u.ID, Tool: u.Name, InputHash: inputHash(u),
		Decision: string(approval.Approve), Source: source, Start: &start, End: &end,
		ExitStatus: res.ExitCode, Truncated: res.Truncated, ApprovedBy: source, Trace: v.Steps,
	}
	if interrupted {
		// LogEntry has no outcome field: the last trace step says it.
		entry.Trace = append(append([]approval.Step(nil), v.Steps...), approval.Step{Resolver: "chatls", Decision: approval.Pass,
			Reason: logInterrupted})
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
