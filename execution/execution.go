// Package execution runs approved tool calls at most once per ID (SPEC §2
// "Execution invariants"): it waits for a free slot, checks the gate again
// on the newest state, records the start in the journal (synced) before
// the tool runs and its result after, and logs the run in the decision
// log. It knows nothing of the editor: the server takes calls to run,
// shows progress and writes the results back.
package execution

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/tools"
)

// ErrCancelled is the cause of a run the user cancelled (chatls.cancel, the
// progress UI): its result is cycle.TextCancelled. It is tools'.
var ErrCancelled = tools.ErrCancelled

// Executor runs calls. Journal nil means no call may run: without it
// "at most once, even across a crash" cannot hold.
type Executor struct {
	Journal   *journal.Journal
	Decisions *approval.DecisionLog // may be nil
	Runner    *tools.Runner
	// Slots bounds parallel runs (tools.maxConcurrent); asked per run
	// because its size follows the settings.
	Slots func() chan struct{}
	Log   *zap.Logger

	// taken are the calls taken and not yet returned from Run, by
	// document and ID: the one place a call's cancel lives.
	mu    sync.Mutex
	taken map[takenKey]*Taken
}

// Taken is a call taken to run: from Take on, Cancel stops it, whether it
// still waits for Run, for a slot, or runs.
type Taken struct {
	key    takenKey
	ctx    context.Context
	cancel context.CancelCauseFunc
}

type takenKey struct{ document, id string }

// Take registers a call about to run under base (the session's context);
// hand it to Run. false: it is taken already.
func (e *Executor) Take(base context.Context, document, id string) (*Taken, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := takenKey{document, id}
	if e.taken[key] != nil {
		return nil, false
	}
	if e.taken == nil {
		e.taken = map[takenKey]*Taken{}
	}
	ctx, cancel := context.WithCancelCause(base)
	t := &Taken{key: key, ctx: ctx, cancel: cancel}
	e.taken[key] = t
	return t, true
}

// Cancel stops a taken call with ErrCancelled (the user's cancel); false
// when no such call is taken.
func (e *Executor) Cancel(document, id string) bool {
	e.mu.Lock()
	t := e.taken[takenKey{document, id}]
	e.mu.Unlock()
	if t == nil {
		return false
	}
	t.cancel(ErrCancelled)
	return true
}

// forget ends a taken call once Run returns.
func (e *Executor) forget(t *Taken) {
	t.cancel(nil)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.taken[t.key] == t {
		delete(e.taken, t.key)
	}
}

// Job is one call taken to run.
type Job struct {
	Document string // the journal's name of the document (its path)
	URI      string // the decision log's
	ID       string
	// Gate is cycle.Gate on the newest snapshot, asked once a slot is
	// free: by why it may run, or the verdict when it may not. It returns
	// the call as it is then.
	Gate func() (call tools.Call, inputHash, by string, v approval.Verdict, ok bool)
	// Env is where the call runs (asked at start: settings may change
	// while it waits).
	Env func() tools.Env
	// Started is told when the tool really starts (journal start on disk),
	// with where it runs, waited saying whether it queued for a slot.
	Started func(call tools.Call, env tools.Env, waited bool)
	// Shape, when set, turns the tool's result into the one recorded and
	// written (flemma.save_to); env is where it ran.
	Shape func(res tools.Result, env tools.Env) tools.Result
	// Checkpoint, when set, records the files the call may change right
	// before it runs (SPEC §10) and returns what records them after it.
	Checkpoint func(call tools.Call, env tools.Env) (after func())
	// BeforeRun, when set (tests), runs right before the runner gets the call.
	BeforeRun func()
}

// Outcome is what a run leaves to write.
type Outcome struct {
	Result tools.Result
	// Write says Result goes into the document; false when nothing may be
	// written (the gate refused without a deny, shutting down, a start
	// already in the journal).
	Write bool
	// Ran says the tool really started (its progress began).
	Ran bool
	// Again says the journal knew the call when it was to start — another
	// chatls process started it (and has finished it now, or stopped) —
	// so the block is resolved again from the journal: the recorded
	// result, or the interrupted text, never a second run.
	Again bool
}

// elsewherePoll bounds the wait between looks at the journal while
// another process runs the call.
const elsewherePoll = time.Second

// Run runs the taken job (Cancel stops it); base is the session's context
// (its end means chatls shuts down, and the journal entry stays
// unfinished so a restarted chatls reports the run instead of repeating
// it).
func (e *Executor) Run(base context.Context, t *Taken, j Job) Outcome {
	defer e.forget(t)
	ctx := t.ctx
	take, waited, err := e.slot(ctx)
	if err != nil {
		return e.cancelledBeforeStart(base, ctx, j)
	}
	var once sync.Once
	release := func() { once.Do(take) }
	// Released here unless the runner took it over (then it is released
	// when the tool really returns, however late).
	handedOver := false
	defer func() {
		if !handedOver {
			release()
		}
	}()
	call, hash, by, verdict, ok := j.Gate()
	switch {
	case !ok && verdict.Decision == approval.Deny:
		return Outcome{Result: tools.Result{Text: cycle.TextDenied, IsError: true}, Write: true}
	case !ok:
		return Outcome{}
	case ctx.Err() != nil:
		return e.cancelledBeforeStart(base, ctx, j)
	case e.Journal == nil:
		return Outcome{Result: tools.Result{Text: cycle.TextNoJournal, IsError: true}, Write: true}
	}
	if err := e.Journal.Start(j.Document, j.ID); errors.Is(err, journal.ErrStarted) {
		e.Log.Warn("refusing to run a tool twice", zap.String("id", j.ID), zap.Error(err))
		if e.Journal.State(j.Document, j.ID) == journal.Running {
			return Outcome{} // this process runs it (another copy of the document)
		}
		release() // waiting on another process takes no slot here
		return e.awaitElsewhere(ctx, j)
	} else if err != nil {
		// The start is not on disk: running now could run it twice after a crash.
		e.Log.Error("execution journal write failed; not running the tool", zap.String("id", j.ID), zap.Error(err))
		return Outcome{Result: tools.Result{Text: cycle.TextNoJournal, IsError: true}, Write: true}
	}
	env := j.Env()
	j.Started(call, env, waited)
	if j.BeforeRun != nil {
		j.BeforeRun()
	}
	started := time.Now()
	var res tools.Result
	// A cancel that came before the runner knew the call is in ctx: the
	// tool does not start (and ctx stops it if the cancel comes now).
	if ctx.Err() == nil {
		after := func() {}
		if j.Checkpoint != nil {
			after = j.Checkpoint(call, env)
		}
		// The slot is the runner's to hand back once the tool has really
		// returned (a tool that ignores the cancel keeps it).
		handedOver = true
		res = e.Runner.RunHolding(ctx, call, env, release)
		after()
	}
	ended := time.Now()
	if base.Err() != nil {
		e.logRun(j, call, env, hash, verdict, by, started, ended, res, true)
		return Outcome{Result: res, Ran: true}
	}
	if errors.Is(context.Cause(ctx), ErrCancelled) || res.Cancelled {
		res = res.AsCancelled()
	}
	if res.Text == "" {
		res.Text = cycle.TextNoOutput
	}
	if j.Shape != nil {
		res = j.Shape(res, env)
	}
	// Recorded before the document edit: if the edit never lands (or the
	// document is reopened from an older copy), the recorded result is
	// written instead of running the tool again.
	if err := e.Journal.Finish(j.Document, j.ID, res.Text, res.IsError); err != nil {
		e.Log.Warn("execution journal write failed", zap.String("id", j.ID), zap.Error(err))
	}
	e.logRun(j, call, env, hash, verdict, by, started, ended, res, false)
	return Outcome{Result: res, Write: true, Ran: true}
}

// awaitElsewhere waits while another chatls process runs the call (the
// journal file is where its finish appears), then has the block resolved
// from the journal. A cancel or shutdown ends the wait and writes nothing:
// the other process still owns the run.
func (e *Executor) awaitElsewhere(ctx context.Context, j Job) Outcome {
	wait := 20 * time.Millisecond
	for e.Journal.State(j.Document, j.ID) == journal.RunningElsewhere {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return Outcome{}
		case <-t.C:
		}
		wait = min(2*wait, elsewherePoll)
	}
	return Outcome{Again: true}
}

// cancelledBeforeStart is the result of a call the user cancelled while it
// waited for a slot or before it started; the journal records it first, so
// the approved block never runs later.
func (e *Executor) cancelledBeforeStart(base, ctx context.Context, j Job) Outcome {
	if !errors.Is(context.Cause(ctx), ErrCancelled) || base.Err() != nil {
		return Outcome{} // shutting down: the block stays as it is
	}
	if e.Journal != nil {
		if err := e.Journal.Resolve(j.Document, j.ID, cycle.TextCancelled); err != nil {
			e.Log.Warn("execution journal write failed", zap.String("id", j.ID), zap.Error(err))
		}
	}
	return Outcome{Result: tools.Result{Text: cycle.TextCancelled, IsError: true, Cancelled: true}, Write: true}
}

// slot bounds parallel executions by tools.maxConcurrent; waited says
// whether the call had to queue for a slot.
func (e *Executor) slot(ctx context.Context) (release func(), waited bool, err error) {
	sem := e.Slots()
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

// logRun writes an execution to the decision log (SPEC §4): the call, why
// it ran (the policy's rule or the user's approval edit, with the policy's
// trace), start, end, exit status, truncation and how it ended. A run cut
// short by chatls shutting down is logged as interrupted.
func (e *Executor) logRun(j Job, call tools.Call, env tools.Env, hash string, v approval.Verdict, by string, start, end time.Time, res tools.Result, interrupted bool) {
	if e.Decisions == nil {
		return
	}
	entry := approval.LogEntry{
		Time: end, Document: j.URI, ToolID: j.ID, Tool: call.Name, InputHash: hash,
		Decision: string(approval.Approve), Source: by, Start: &start, End: &end,
		ExitStatus: res.ExitCode, Truncated: res.Truncated, ApprovedBy: by,
		TimedOut: res.TimedOut, Outcome: res.Outcome(interrupted),
		Target: env.RunsOn(call),
	}
	if by == cycle.ByUserEdit {
		// The policy did not approve it (its verdict and trace say what it
		// answered); the user did.
		entry.Reason = "approved by the user's edit of the placeholder in this session"
	}
	if err := e.Decisions.Write(v.LogEntry(entry)); err != nil {
		e.Log.Warn("decision log write failed", zap.Error(err))
	}
}
