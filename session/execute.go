package session

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/execution"
	"github.com/chatls/chatls/internal/workdone"
	"github.com/chatls/chatls/tools"
)

// testHookBeforeRun, when set (tests only), runs right before a started
// tool is handed to the runner: the moment a cancel used to be lost.
var testHookBeforeRun func(id string)

// startTool takes an approved tool to run in the background (it waits for
// a slot, then passes the gate again). It reports whether it was taken.
func (s *Session) startTool(ds *Doc, id string) bool {
	if s.baseCtx.Err() != nil {
		return false
	}
	s.mu.Lock()
	if ds.closed || !ds.ledger.Take(id, time.Now()) {
		s.mu.Unlock()
		return false
	}
	taken, ok := s.executor.Take(s.baseCtx, ds.journalKey(), id)
	if !ok {
		ds.ledger.Done(id)
		s.mu.Unlock()
		return false
	}
	s.mu.Unlock()
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		s.runTool(ds, id, taken)
	}()
	return true
}

// runTool runs one taken tool through the executor (at most once per ID)
// and writes its result; meanwhile the ledger, hints, diagnostics and
// $/progress show it.
func (s *Session) runTool(ds *Doc, id string, taken *execution.Taken) {
	var progress *runProgress
	var announcement *workdone.Delayed
	stopTicker := func() {}
	var out execution.Outcome
	defer func() {
		stopTicker()
		announced := announcement != nil && announcement.Settle()
		s.mu.Lock()
		ds.ledger.Done(id)
		s.mu.Unlock()
		if out.Again && s.baseCtx.Err() == nil {
			// Another chatls ran it: its recorded result (or the
			// interrupted text) goes into this block instead.
			s.resolve(ds, true, id)
		}
		if announced {
			// Hints said "running"; a result edit makes clients ask again
			// anyway, but a run that wrote none (shutdown, refusal) must
			// not leave that hint behind.
			s.editor.RefreshHints()
		}
		s.scheduleDiagnostics(ds)
	}()
	var escape cycle.Escape // what the user's approval let this call do (sandbox=off, network=on)
	background := ""        // the job, when the call runs in the background
	jobStarted := make(chan struct{})
	saveTarget := "" // flemma.save_to
	job := execution.Job{
		Document: ds.journalKey(), URI: ds.uri, ID: id,
		Gate: func() (tools.Call, string, string, approval.Verdict, bool) {
			doc, l := s.view(ds)
			by, v, ok := cycle.Gate(doc, l, id, s.facts(ds, doc, ""))
			u := doc.ToolUse(id)
			if !ok || u == nil {
				return tools.Call{}, "", "", v, false
			}
			escape = l.SandboxEscape(u, doc.ToolResult(id))
			if u.Background() {
				background = jobName(ds.journalKey(), id)
			}
			saveTarget = u.SaveTo()
			return tools.Call{ID: u.ID, Name: u.Name, Input: u.ToolInput()}, cycle.InputHash(u), by, v, true
		},
		Env: func() tools.Env {
			env := s.toolEnv(ds)
			env.TempDir = ensureStore(env.TempDir)
			env.StorePath = env.TempDir
			env.Sandbox.Outside = env.Sandbox.Outside || escape.Outside
			env.Sandbox.Network = env.Sandbox.Network || escape.Network
			env.Progress = func(p tools.Progress) { progress.report(p, s.editor.RefreshHints) }
			return env
		},
		Started: func(call tools.Call, env tools.Env, waited bool) {
			s.mu.Lock()
			ds.ledger.Started(id, call.Name, time.Now(), waited)
			s.mu.Unlock()
			progress = s.newRunProgress(ds, id, call, env.Target)
			announcement = s.announceLater(ds, progress)
			stopTicker = s.tickWhileRunning()
			if background != "" {
				s.tasks.Add(1)
				go func() {
					defer s.tasks.Done()
					defer close(jobStarted)
					s.startJob(ds, id, background)
				}()
			}
		},
	}
	job.Shape = func(res tools.Result, env tools.Env) tools.Result {
		if saveTarget == "" || res.Cancelled {
			return res
		}
		return saveTo(env.TempDir, saveTarget, res)
	}
	job.Checkpoint = func(call tools.Call, env tools.Env) func() { return s.checkpoint(ds, call, env) }
	if testHookBeforeRun != nil {
		job.BeforeRun = func() { testHookBeforeRun(id) }
	}
	out = s.executor.Run(s.baseCtx, taken, job)
	if announcement != nil {
		announcement.Settle() // "end" must follow "begin" if the announcement went out
		progress.end(out.Result)
	}
	switch {
	case background != "" && out.Ran && out.Write:
		<-jobStarted // its "running in background" result first
		s.deliverJob(ds, background, out.Result)
	case background != "" && out.Ran:
		// Shutting down: the next chatls recovers the job.
	case out.Write:
		s.writeResult(ds, id, out.Result)
	}
}

// writeResult replaces the tool's placeholder with its result, located by ID
// in the newest snapshot. While it writes, the tool counts as writing, not
// running, so no step resolves the block meanwhile.
//
// If the user typed into the block while the tool ran, their text wins
// (content-overwrite protection, SPEC §2) and the block becomes a result
// carrying it; the tool's output is saved to a file and a note after the
// user's text says where, so neither is lost.
func (s *Session) writeResult(ds *Doc, id string, res tools.Result) {
	s.mu.Lock()
	ds.beginWrite(id)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		ds.endWrite(id)
		s.mu.Unlock()
		ds.wake() // the last result of a response lets the chain go on (SPEC §7)
	}()
	note := ""
	s.editDocumentAs(ds, "chatls: tool result", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		r := doc.ToolResult(id)
		if r == nil || !r.IsPlaceholder() {
			return nil, nil // resolved meanwhile: never written twice
		}
		text, isError := cycle.FinishedText(r, res.Text, res.IsError, func() string {
			if note == "" {
				note = s.keepOutput(id, res)
			}
			return note
		})
		return chatdoc.ReplaceWithResult(doc, id, text, isError)
	}, nil, id)
}

// keepOutput saves the output of a tool whose block the user wrote into and
// returns the note that goes after their text.
func (s *Session) keepOutput(id string, res tools.Result) string {
	path := res.FullOutputPath
	if !res.Truncated || path == "" {
		var err error
		if path, err = tools.SaveOutput(os.TempDir(), id, res.Text); err != nil {
			s.log.Warn("cannot save a tool's output", zap.String("id", id), zap.Error(err))
			return cycle.TextOutputInline + "\n\n" + res.Text
		}
	}
	s.showMessage(MessageInfo, fmt.Sprintf("chatls: you wrote in the block of %s while it ran, so your text is its result; the tool's output is in %s", id, path))
	return fmt.Sprintf(cycle.TextOutputSaved, path)
}

// toolEnv is where a document's tools run, with the document's settings.
// write/edit refuse paths outside the writable set (SPEC §5) unless the
// trusted settings turned the sandbox off. bash runs inside bubblewrap
// when it starts; where it cannot, with sandbox.enabled = "auto" bash runs
// directly (only what a rule or the user approved), with true the call
// fails.
func (s *Session) toolEnv(ds *Doc) tools.Env {
	eff := s.settings.effectiveFor(ds.path)
	dir := filepath.Dir(ds.path)
	root := s.workspaceRoot(ds.path)
	if ds.path == "" {
		dir = root
	}
	tmp := os.TempDir()
	store := resultStore(ds.path)
	writable := append([]string{root, dir, tmp, store}, eff.Sandbox.Writable...)
	bwrapWorks := s.sandboxProblem(eff) == ""
	return tools.Env{
		Dir:           dir,
		WorkspaceRoot: root,
		Writable:      writable,
		Sandbox: tools.SandboxConfig{Enabled: eff.Sandbox.Enabled && (bwrapWorks || eff.Sandbox.Required),
			Writable: writable, Network: eff.Sandbox.Network, Env: eff.Sandbox.Env, Bwrap: eff.Sandbox.Bwrap},
		RestrictWrites: eff.Sandbox.Enabled,
		TempDir:        store, // overflow goes to the result store; made when a call runs
		BashCwd:        eff.BashCwd,
		DefaultTimeout: eff.DefaultTimeout,
		BashTimeout:    eff.BashTimeout,
		Retries:        eff.Retries,
		Hidden:         s.readDenied(ds),
		Target:         s.targetFor(ds, s.latest(ds)),
	}
}

// targetFor is the target the document's calls run on (nil: here).
func (s *Session) targetFor(ds *Doc, doc *chatdoc.Document) *tools.TargetEnv {
	if ds == nil {
		return nil
	}
	trusted := func() bool {
		layers, _, _ := s.settings.store.Current()
		home, _ := os.UserHomeDir()
		return approval.IsTrustedRoot(s.workspaceRoot(ds.path), layers.User(), home)
	}
	return chooseTarget(s.settings.effectiveFor(ds.path), doc, trusted, &s.targets)
}

// readDenied is the document's policy's Hidden (what read deny rules cover
// and sensitive files no rule names), for tools walking directories; nil
// when no policy engine can be built (every call asks then).
func (s *Session) readDenied(ds *Doc) func(string) bool {
	engine, err := s.engineFor(ds, s.latest(ds))
	if err != nil {
		return nil
	}
	return engine.Hidden
}

// cancelTool stops a tool of the document (chatls.cancel, progress
// cancel), whether it is queued for a slot, about to start or running. It
// reports whether there was one to stop.
func (s *Session) cancelTool(ds *Doc, id string) bool {
	return s.executor.Cancel(ds.journalKey(), id)
}

// tickWhileRunning refreshes inlay hints every second so a running call's
// elapsed time stays current even when it prints nothing.
func (s *Session) tickWhileRunning() (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.editor.RefreshHints()
			case <-done:
				return
			case <-s.baseCtx.Done():
				return
			}
		}
	}()
	return func() { close(done) }
}
