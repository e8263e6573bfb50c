package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/tools"
)

// errUserCancelled is the cause of a run the user cancelled.
var errUserCancelled = errors.New("cancelled by the user")

// testHookBeforeRun, when set (tests only), runs right before a started
// tool is handed to the runner: the moment a cancel used to be lost.
var testHookBeforeRun func(id string)

// startTool takes an approved tool to run in the background (it waits for
// a slot, then passes the gate again). It reports whether it was taken.
func (s *Server) startTool(ds *docState, id string) bool {
	if s.baseCtx.Err() != nil {
		return false
	}
	s.mu.Lock()
	if ds.closed || !ds.ledger.Take(id, time.Now()) {
		s.mu.Unlock()
		return false
	}
	ctx, cancel := context.WithCancelCause(s.baseCtx)
	rs := &runState{id: id, ctx: ctx, cancel: cancel}
	ds.runs[id] = rs
	s.mu.Unlock()
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		s.runTool(ds, rs)
	}()
	return true
}

func (s *Server) runTool(ds *docState, rs *runState) {
	announced := false
	defer func() {
		rs.cancel(nil)
		s.mu.Lock()
		delete(ds.runs, rs.id)
		ds.ledger.Done(rs.id)
		s.mu.Unlock()
		if announced {
			// Hints said "running"; a result edit makes clients ask again
			// anyway, but a run that wrote none (shutdown, refusal) must
			// not leave that hint behind.
			s.refreshHints()
		}
		s.scheduleDiagnostics(ds)
	}()
	release, waited, err := s.acquireSlot(rs.ctx)
	if err != nil {
		s.cancelledBeforeStart(ds, rs)
		return
	}
	defer release()

	doc, l := s.view(ds)
	source, verdict, ok := cycle.Gate(doc, l, rs.id, s.facts(ds, doc, ""))
	if !ok {
		if verdict.Decision == approval.Deny {
			s.writeResult(ds, rs.id, tools.Result{Text: cycle.TextDenied, IsError: true})
		}
		return
	}
	if rs.ctx.Err() != nil {
		s.cancelledBeforeStart(ds, rs)
		return
	}
	u := doc.ToolUse(rs.id)
	if s.journal == nil {
		// Without the journal "at most once, even across a crash" cannot hold.
		s.writeResult(ds, rs.id, tools.Result{Text: cycle.TextNoJournal, IsError: true})
		return
	}
	key := ds.journalKey()
	if err := s.journal.Start(key, rs.id); errors.Is(err, journal.ErrStarted) {
		s.log.Warn("refusing to run a tool twice", zap.String("id", rs.id), zap.Error(err))
		return
	} else if err != nil {
		// The start is not on disk: running now could run it twice after a crash.
		s.log.Error("execution journal write failed; not running the tool", zap.String("id", rs.id), zap.Error(err))
		s.writeResult(ds, rs.id, tools.Result{Text: cycle.TextNoJournal, IsError: true})
		return
	}
	s.mu.Lock()
	ds.ledger.Started(rs.id, u.Name, time.Now(), waited)
	s.mu.Unlock()
	progress := s.newProgress(rs, u)
	announcement := s.announceLater(ds, progress)
	defer func() { announced = announcement.settle() }()
	stopTicker := s.tickWhileRunning()
	defer stopTicker()

	env := s.toolEnv(ds)
	env.Progress = func(p tools.Progress) {
		s.mu.Lock()
		rs.last = p.LastLine
		s.mu.Unlock()
		progress.report(p)
	}
	if testHookBeforeRun != nil {
		testHookBeforeRun(rs.id)
	}
	started := time.Now()
	var res tools.Result
	// A cancel that came before the runner knew the call is in rs.ctx: the
	// tool does not start (and rs.ctx stops it if the cancel comes now).
	if rs.ctx.Err() == nil {
		res = s.runner.Run(rs.ctx, tools.Call{ID: rs.id, Name: u.Name, Input: u.Input}, env)
	}
	ended := time.Now()
	announcement.settle() // "end" must follow "begin" if the announcement went out
	if s.baseCtx.Err() != nil {
		// Shutting down: the journal entry stays unfinished, so a restarted
		// chatls writes StoppedText instead of running the tool again.
		progress.end(res)
		s.logRun(ds, u, verdict, source, started, ended, res, true)
		return
	}
	if errors.Is(context.Cause(rs.ctx), errUserCancelled) {
		res = tools.Result{Text: cycle.TextCancelled, IsError: true, Cancelled: true, ExitCode: res.ExitCode,
			Truncated: res.Truncated, FullOutputPath: res.FullOutputPath}
	}
	progress.end(res)
	if res.Cancelled {
		res.Text = cycle.TextCancelled
		res.IsError = true
	}
	if res.Text == "" {
		res.Text = cycle.TextNoOutput
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

// cancelledBeforeStart writes the cancelled result for a tool the user
// cancelled while it waited for a slot or before it started; the journal
// records it first, so the approved block never runs later.
func (s *Server) cancelledBeforeStart(ds *docState, rs *runState) {
	if !errors.Is(context.Cause(rs.ctx), errUserCancelled) || s.baseCtx.Err() != nil {
		return // shutting down: the block stays as it is
	}
	if s.journal != nil {
		if err := s.journal.Resolve(ds.journalKey(), rs.id, cycle.TextCancelled); err != nil {
			s.log.Warn("execution journal write failed", zap.String("id", rs.id), zap.Error(err))
		}
	}
	s.writeResult(ds, rs.id, tools.Result{Text: cycle.TextCancelled, IsError: true, Cancelled: true})
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
		if path, err = tools.SaveOutput(os.TempDir(), id, res.Text); err != nil {
			s.log.Warn("cannot save a tool's output", zap.String("id", id), zap.Error(err))
			return cycle.TextOutputInline + "\n\n" + res.Text
		}
	}
	s.showMessage(lspext.MessageInfo, fmt.Sprintf("chatls: you wrote in the block of %s while it ran, so your text is its result; the tool's output is in %s", id, path))
	return fmt.Sprintf(cycle.TextOutputSaved, path)
}

// acquireSlot bounds parallel executions by tools.maxConcurrent; waited
// says whether the call had to queue for a slot.
func (s *Server) acquireSlot(ctx context.Context) (release func(), waited bool, err error) {
	sem := s.settings.semaphore()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, false, nil
	default:
	}
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, true, nil
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

// toolEnv is where a document's tools run, with the document's settings.
// sandbox.enabled makes write/edit refuse paths outside the writable set
// (SPEC §5) whether or not bubblewrap works; bash runs inside bubblewrap
// when it works, and without it only for calls the user approved (the
// policy asks for every bash call then).
func (s *Server) toolEnv(ds *docState) tools.Env {
	eff := s.settings.effectiveFor(ds.path)
	dir := filepath.Dir(ds.path)
	root := s.workspaceRoot(ds.path)
	if ds.path == "" {
		dir = root
	}
	tmp := os.TempDir()
	writable := append([]string{root, dir, tmp}, eff.Sandbox.Writable...)
	bwrapWorks := s.sandboxProblem(eff) == ""
	return tools.Env{
		Dir:            dir,
		WorkspaceRoot:  root,
		Writable:       writable,
		Sandbox:        tools.SandboxConfig{Enabled: eff.Sandbox.Enabled && bwrapWorks, Writable: writable, Network: eff.Sandbox.Network, Bwrap: eff.Sandbox.Bwrap},
		RestrictWrites: eff.Sandbox.Enabled,
		TempDir:        tmp,
		BashCwd:        eff.BashCwd,
		DefaultTimeout: eff.DefaultTimeout,
		BashTimeout:    eff.BashTimeout,
	}
}

// logRun writes an execution to the decision log (SPEC §4): the call, why
// it ran (the policy's rule or the user's approval edit, with the policy's
// trace), start, end, exit status, truncation and how it ended. A run cut
// short by the server shutting down is logged as interrupted.
func (s *Server) logRun(ds *docState, u *chatdoc.ToolUse, v approval.Verdict, source string, start, end time.Time, res tools.Result, interrupted bool) {
	if s.decisions == nil {
		return
	}
	entry := approval.LogEntry{
		Time: end, Document: ds.uri, ToolID: u.ID, Tool: u.Name, InputHash: cycle.InputHash(u),
		Decision: string(approval.Approve), Source: source, Start: &start, End: &end,
		ExitStatus: res.ExitCode, Truncated: res.Truncated, ApprovedBy: source,
		TimedOut: res.TimedOut, Outcome: res.Outcome(interrupted),
	}
	if source == cycle.ByUserEdit {
		// The policy did not approve it (its verdict and trace say what it
		// answered); the user did.
		entry.Reason = "approved by the user's edit of the placeholder in this session"
	}
	if err := s.decisions.Write(v.LogEntry(entry)); err != nil {
		s.log.Warn("decision log write failed", zap.Error(err))
	}
}

// cancelTool stops a tool of the document (chatls.cancel, progress
// cancel), whether it is queued for a slot, about to start or running. It
// reports whether there was one to stop.
func (s *Server) cancelTool(ds *docState, id string) bool {
	s.mu.Lock()
	rs := ds.runs[id]
	s.mu.Unlock()
	if rs == nil {
		return false
	}
	rs.cancel(errUserCancelled)
	return true
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
