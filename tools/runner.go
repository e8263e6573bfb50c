package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"
)

// Texts of results the runner writes itself (SPEC §1 fixed texts).
const (
	CancelledText = "User aborted tool execution."
)

// ErrCancelled is the cause of a call the user cancelled (chatls.cancel,
// the progress UI, closing the document): the one cancel error of tools,
// the executor and the server. Its result ends in CancelledText.
var ErrCancelled = errors.New("cancelled by the user")

var errToolTimeout = errors.New("tool timed out")

// lateResultGrace is how long Run waits, after cancelling a tool, for the
// tool's own (partial) result before giving up on a tool that ignores ctx
// (a busy machine took over 3 s to reap a killed bash; its output was lost).
var lateResultGrace = 10 * time.Second

// Runner executes calls. It keeps no state of its own: the caller (the
// executor) owns each call's slot, its cancel (ctx, with ErrCancelled as
// the cause) and the at-most-once bookkeeping.
type Runner struct {
	reg *Registry
}

// NewRunner returns a runner over reg.
func NewRunner(reg *Registry) *Runner { return &Runner{reg: reg} }

// Run validates and executes one call. It never panics: unknown tools,
// schema violations, panics in tools and cancellation all become results.
func (r *Runner) Run(ctx context.Context, call Call, env Env) Result {
	return r.RunHolding(ctx, call, env, nil)
}

// RunHolding is Run for a caller that holds a slot for the call: finished
// (if not nil) is called once the tool has really returned — also when it
// ignored the cancel and Run stopped waiting for it — so a stuck tool
// keeps its slot and cannot let more calls run than tools.maxConcurrent
// allows. It is called exactly once, also for a call that never started.
func (r *Runner) RunHolding(ctx context.Context, call Call, env Env, finished func()) Result {
	if finished == nil {
		finished = func() {}
	}
	reg := OnTarget{r.reg, env.Target}
	tool, ok := reg.Lookup(call.Name)
	if !ok {
		finished()
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
		finished()
		return Result{Text: text, IsError: true}
	}
	if ctx.Err() != nil {
		finished()
		return interrupted(ctx, Result{})
	}
	res := r.executeWithRetries(ctx, tool, call, env, finished)
	if errors.Is(context.Cause(ctx), ErrCancelled) {
		return limitResult(res.AsCancelled(), call, env)
	}
	return limitResult(res, call, env)
}

// execute runs the tool on its own goroutine so a tool that ignores ctx
// cannot hold the caller past the grace period, and recovers its panics.
// finished runs when the tool has returned, however late.
func (r *Runner) execute(ctx context.Context, tool Tool, call Call, env Env, finished func()) Result {
	timeout := 0
	if t, ok := tool.(SelfTimed); !ok || !t.TimesItself() {
		timeout = env.DefaultTimeout
		if timeout <= 0 {
			timeout = 30
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, time.Duration(timeout)*time.Second, errToolTimeout)
		defer cancel()
		if env.Progress != nil {
			var stop func()
			env.Progress, stop = TickProgress(env.Progress)
			defer stop()
		}
	}
	sink := newOutputSink(env.Limits, env.TempDir, call.ID)
	env.output = sink
	if env.OnOutput != nil {
		env.OnOutput(sink)
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
			// The tool did not return: what it printed is kept all the same.
			res = Result{IsError: true, Text: sink.partial()}
			if errors.Is(context.Cause(ctx), ErrCancelled) {
				res.Text, res.Cancelled = appendParagraph(res.Text, CancelledText), true
			}
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
	if errors.Is(context.Cause(ctx), ErrCancelled) || errors.Is(ctx.Err(), context.Canceled) {
		return Result{Text: CancelledText, IsError: true, Cancelled: true, ExitCode: res.ExitCode}
	}
	return Result{Text: fmt.Sprintf("Tool stopped: %v.", context.Cause(ctx)), IsError: true, ExitCode: res.ExitCode}
}

// limitResult applies the output limits to results the tool did not limit
// itself (plugins, MCP, built-ins returning text): head kept, full text saved.
func limitResult(res Result, call Call, env Env) Result {
	res.Text = DocumentText(res.Text)
	if res.Truncated {
		return res
	}
	limits := env.Limits.OrDefault()
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
