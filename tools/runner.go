package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"sync"
	"time"
)

// Texts of results the runner writes itself (SPEC §1 fixed texts).
const (
	CancelledText = "User aborted tool execution."
)

var (
	errCancelledByUser = errors.New("cancelled by the user")
	errToolTimeout     = errors.New("tool timed out")
)

// lateResultGrace is how long Run waits, after cancelling a tool, for the
// tool's own (partial) result before giving up on a tool that ignores ctx
// (a busy machine took over 3 s to reap a killed bash; its output was lost).
var lateResultGrace = 10 * time.Second

// timesItself is implemented by tools that apply their own timeout (bash:
// the input's `timeout` or tools.bash.timeout) instead of Env.DefaultTimeout.
type timesItself interface{ timesItself() bool }

// Runner executes validated calls with at most maxConcurrent at a time.
type Runner struct {
	reg *Registry

	mu      sync.Mutex
	max     int
	active  int
	waiters []chan struct{}
	calls   map[string]context.CancelCauseFunc
}

// NewRunner returns a runner over reg; maxConcurrent < 1 means 1.
func NewRunner(reg *Registry, maxConcurrent int) *Runner {
	return &Runner{reg: reg, max: max(maxConcurrent, 1), calls: map[string]context.CancelCauseFunc{}}
}

// SetMaxConcurrent changes the bound (tools.maxConcurrent changed live);
// queued calls start at once if the new bound allows.
func (r *Runner) SetMaxConcurrent(n int) {
	r.mu.Lock()
	r.max = max(n, 1)
	r.grantLocked()
	r.mu.Unlock()
}

// Running returns the IDs of calls in flight (queued for a slot or running), sorted.
func (r *Runner) Running() []string {
	r.mu.Lock()
	ids := make([]string, 0, len(r.calls))
	for id := range r.calls {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	sort.Strings(ids)
	return ids
}

// Cancel stops the call with this ID (its process group is killed); its Run
// returns a Cancelled result. It reports whether such a call was in flight.
func (r *Runner) Cancel(id string) bool {
	r.mu.Lock()
	cancel, ok := r.calls[id]
	r.mu.Unlock()
	if ok {
		cancel(errCancelledByUser)
	}
	return ok
}

// CancelAll stops every call in flight and returns how many; each Run then
// returns a Cancelled result. For an exiting server KillAll is the tool: it
// is synchronous and needs no Run to finish.
func (r *Runner) CancelAll() int {
	r.mu.Lock()
	cancels := make([]context.CancelCauseFunc, 0, len(r.calls))
	for _, c := range r.calls {
		cancels = append(cancels, c)
	}
	r.mu.Unlock()
	for _, c := range cancels {
		c(errCancelledByUser)
	}
	return len(cancels)
}

// Run validates and executes one call. It never panics: unknown tools,
// schema violations, panics in tools and cancellation all become results.
func (r *Runner) Run(ctx context.Context, call Call, env Env) Result {
	reg := OnTarget{r.reg, env.Target}
	tool, ok := reg.Lookup(call.Name)
	if !ok {
		msg := "Unknown tool: " + call.Name
		if s := r.reg.Suggest(call.Name); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return Result{Text: msg, IsError: true}
	}
	if call.Input == nil {
		call.Input = map[string]any{}
	}
	if text := reg.InvalidInput(call.Name, call.Input); text != "" {
		return Result{Text: text, IsError: true}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if !r.register(call.ID, cancel) {
		return Result{Text: fmt.Sprintf("Tool call %s is already running; it was not started twice.", call.ID), IsError: true}
	}
	if err := r.acquire(ctx); err != nil {
		r.unregister(call.ID)
		return interrupted(ctx, Result{})
	}
	// The slot and the ID stay taken until the tool really returns, also when
	// it ignores cancellation and Run stops waiting for it: a stuck tool must
	// not let more calls run than tools.maxConcurrent allows.
	finished := func() {
		r.release()
		r.unregister(call.ID)
	}
	res := r.executeWithRetries(ctx, tool, call, env, finished)
	if errors.Is(context.Cause(ctx), errCancelledByUser) {
		return limitResult(res.AsCancelled(), call, env)
	}
	return limitResult(res, call, env)
}

// execute runs the tool on its own goroutine so a tool that ignores ctx
// cannot hold the caller past the grace period, and recovers its panics.
// finished runs when the tool has returned, however late.
func (r *Runner) execute(ctx context.Context, tool Tool, call Call, env Env, finished func()) Result {
	timeout := 0
	if t, ok := tool.(timesItself); !ok || !t.timesItself() {
		timeout = env.DefaultTimeout
		if timeout <= 0 {
			timeout = 30
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, time.Duration(timeout)*time.Second, errToolTimeout)
		defer cancel()
		if env.Progress != nil {
			var stop func()
			env.Progress, stop = tickProgress(env.Progress)
			defer stop()
		}
	}
	done := make(chan Result, 1)
	go func() {
		var res Result
		defer func() {
			if p := recover(); p != nil {
				res = Result{Text: fmt.Sprintf("Tool %s failed: internal error: %v", call.Name, p), IsError: true}
				debug.PrintStack()
			}
			finished()
			done <- res
		}()
		if r, ok := runOnTarget(ctx, tool, call, env); ok {
			res = r
		} else {
			res = tool.Run(ctx, call, env)
		}
	}()
	var res Result
	select {
	case res = <-done:
	case <-ctx.Done():
		select {
		case res = <-done:
		case <-time.After(lateResultGrace):
			res = Result{IsError: true}
		}
	}
	if errors.Is(context.Cause(ctx), errToolTimeout) {
		return Result{Text: fmt.Sprintf("Tool %s timed out after %d seconds.", call.Name, timeout), IsError: true, TimedOut: true, ExitCode: res.ExitCode}
	}
	if ctx.Err() != nil && res.Text == "" {
		return interrupted(ctx, res)
	}
	return res
}

// interrupted is the result of a call whose context ended before it finished.
func interrupted(ctx context.Context, res Result) Result {
	if errors.Is(context.Cause(ctx), errCancelledByUser) || errors.Is(ctx.Err(), context.Canceled) {
		return Result{Text: CancelledText, IsError: true, Cancelled: true, ExitCode: res.ExitCode}
	}
	return Result{Text: fmt.Sprintf("Tool stopped: %v.", context.Cause(ctx)), IsError: true, ExitCode: res.ExitCode}
}

// limitResult applies the output limits to results the tool did not limit
// itself (plugins, MCP, built-ins returning text): head kept, full text saved.
func limitResult(res Result, call Call, env Env) Result {
	res.Text = documentText(res.Text)
	if res.Truncated {
		return res
	}
	limits := env.Limits.orDefault()
	total := countLines(res.Text)
	if len(res.Text) <= limits.MaxBytes && total <= limits.MaxLines {
		return res
	}
	kept, shown := headLines(res.Text, limits.MaxLines, limits.MaxBytes)
	dir := env.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	note := ""
	if f, err := os.CreateTemp(dir, "chatls-"+safeFileName(call.ID)+"-*.log"); err == nil {
		_, werr := f.WriteString(res.Text)
		f.Close()
		if werr == nil {
			res.FullOutputPath = f.Name()
			note = fmt.Sprintf("[Showing lines 1-%d of %d. Full output: %s]", shown, total, f.Name())
		}
	}
	if note == "" {
		note = fmt.Sprintf("[Showing lines 1-%d of %d. Full output could not be saved.]", shown, total)
	}
	res.Text = kept
	if len(res.Text) > 0 && res.Text[len(res.Text)-1] != '\n' {
		res.Text += "\n"
	}
	res.Text += "\n" + note
	res.Truncated = true
	return res
}

func (r *Runner) register(id string, cancel context.CancelCauseFunc) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, busy := r.calls[id]; busy {
		return false
	}
	r.calls[id] = cancel
	return true
}

func (r *Runner) unregister(id string) {
	r.mu.Lock()
	delete(r.calls, id)
	r.mu.Unlock()
}

// acquire takes a slot, queueing FIFO behind earlier calls.
func (r *Runner) acquire(ctx context.Context) error {
	r.mu.Lock()
	if r.active < r.max && len(r.waiters) == 0 {
		r.active++
		r.mu.Unlock()
		return nil
	}
	w := make(chan struct{})
	r.waiters = append(r.waiters, w)
	r.mu.Unlock()
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, x := range r.waiters {
			if x == w {
				r.waiters = append(r.waiters[:i], r.waiters[i+1:]...)
				return ctx.Err()
			}
		}
		// Granted while we gave up: hand the slot on.
		r.active--
		r.grantLocked()
		return ctx.Err()
	}
}

func (r *Runner) release() {
	r.mu.Lock()
	r.active--
	r.grantLocked()
	r.mu.Unlock()
}

func (r *Runner) grantLocked() {
	for r.active < r.max && len(r.waiters) > 0 {
		w := r.waiters[0]
		r.waiters = r.waiters[1:]
		r.active++
		close(w)
	}
}
