package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunnerRejectsInvalidInputWithoutRunning(t *testing.T) {
	var ran atomic.Bool
	tool := fakeTool{
		def: Definition{Name: "edit2", Schema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path","newText"],
			"properties":{"path":{"type":"string"},"newText":{"type":"string"}}}`)},
		run: func(context.Context, Call, Env) Result { ran.Store(true); return Result{Text: "ran"} },
	}
	r := NewRunner(NewRegistry([]Tool{tool}))
	res := r.Run(context.Background(), Call{ID: "1", Name: "edit2", Input: map[string]any{"path": 42.0}}, testEnv(t))
	wantText(t, res, "Invalid input for edit2:\n- newText: missing required property\n- path: expected string, got number")
	if !res.IsError || ran.Load() {
		t.Errorf("IsError=%v ran=%v", res.IsError, ran.Load())
	}
}

func TestRunnerUnknownToolSuggests(t *testing.T) {
	r := NewRunner(NewRegistry(builtins(t)))
	res := r.Run(context.Background(), Call{ID: "1", Name: "reed", Input: map[string]any{"path": "x"}}, testEnv(t))
	wantText(t, res, "Unknown tool: reed (did you mean read?)")
}

func TestRunnerRecoversPanics(t *testing.T) {
	tool := fakeTool{def: Definition{Name: "boom"}, run: func(context.Context, Call, Env) Result { panic("kaboom") }}
	r := NewRunner(NewRegistry([]Tool{tool}))
	res := r.Run(context.Background(), Call{ID: "1", Name: "boom"}, testEnv(t))
	if !res.IsError || !strings.Contains(res.Text, "internal error: kaboom") {
		t.Errorf("got %+v", res)
	}
}

// waitUntil polls a condition of the runner's own state (no sleeping for events).
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		runtime.Gosched()
	}
}

func TestRunnerTimesOutToolsThatIgnoreContext(t *testing.T) {
	old := lateResultGrace
	lateResultGrace = 20 * time.Millisecond
	defer func() { lateResultGrace = old }()
	stuck := make(chan struct{})
	r := NewRunner(NewRegistry([]Tool{
		fakeTool{def: Definition{Name: "stuck"}, run: func(context.Context, Call, Env) Result { <-stuck; return Result{} }},
	}))
	env := testEnv(t)
	env.DefaultTimeout = 1
	var finished atomic.Int32
	res := r.RunHolding(context.Background(), Call{ID: "1", Name: "stuck"}, env, func() { finished.Add(1) })
	wantText(t, res, "Tool stuck timed out after 1 seconds.")
	if !res.TimedOut || !res.IsError {
		t.Errorf("TimedOut=%v IsError=%v", res.TimedOut, res.IsError)
	}
	// Abandoned but still running: the caller's slot stays taken.
	if n := finished.Load(); n != 0 {
		t.Fatalf("finished called %d times while the tool still runs", n)
	}
	close(stuck)
	waitUntil(t, func() bool { return finished.Load() == 1 })

	// Cancel works on a tool that ignores it, too.
	stuck2 := make(chan struct{})
	defer close(stuck2)
	r2 := NewRunner(NewRegistry([]Tool{fakeTool{def: Definition{Name: "stuck"}, run: func(context.Context, Call, Env) Result { <-stuck2; return Result{} }}}))
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrCancelled)
	if res := r2.Run(ctx, Call{ID: "3", Name: "stuck"}, testEnv(t)); !res.Cancelled || res.Text != CancelledText {
		t.Errorf("got %+v", res)
	}
}

// finished is called exactly once, also for a call that never started.
func TestRunnerFinishedOnceForEveryOutcome(t *testing.T) {
	r := NewRunner(NewRegistry([]Tool{fakeTool{def: Definition{Name: "ok"}, run: func(context.Context, Call, Env) Result { return Result{Text: "done"} }}}))
	cancelled, cancel := context.WithCancelCause(context.Background())
	cancel(ErrCancelled)
	for name, c := range map[string]struct {
		ctx  context.Context
		call Call
	}{
		"ran":       {context.Background(), Call{ID: "a", Name: "ok"}},
		"unknown":   {context.Background(), Call{ID: "b", Name: "nope"}},
		"cancelled": {cancelled, Call{ID: "c", Name: "ok"}},
	} {
		var n atomic.Int32
		r.RunHolding(c.ctx, c.call, testEnv(t), func() { n.Add(1) })
		waitUntil(t, func() bool { return n.Load() >= 1 })
		if n.Load() != 1 {
			t.Errorf("%s: finished %d times", name, n.Load())
		}
	}
}

func TestRunnerLimitsLongResults(t *testing.T) {
	var lines []string
	for i := 1; i <= 3000; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	full := strings.Join(lines, "\n")
	tool := fakeTool{def: Definition{Name: "chatty", Source: "plugin:x"}, run: func(context.Context, Call, Env) Result { return Result{Text: full} }}
	r := NewRunner(NewRegistry(nil))
	r.reg.Replace("plugin:x", []Tool{tool})
	env := testEnv(t)
	res := r.Run(context.Background(), Call{ID: "c1", Name: "chatty"}, env)
	if !res.Truncated || filepath.Dir(res.FullOutputPath) != env.TempDir {
		t.Fatalf("Truncated=%v path=%q", res.Truncated, res.FullOutputPath)
	}
	wantContains(t, res, "line 1\n", "line 2000\n\n[Showing lines 1-2000 of 3000. Full output: "+res.FullOutputPath+"]")
	saved, _ := os.ReadFile(res.FullOutputPath)
	if string(saved) != full {
		t.Error("full output file differs")
	}
}

func TestRunnerMakesInvalidUTF8Valid(t *testing.T) {
	tool := fakeTool{def: Definition{Name: "bin"}, run: func(context.Context, Call, Env) Result {
		return Result{Text: "ok \xff\xfe \x1b[31mred\x1b[0m\x00"}
	}}
	r := NewRunner(NewRegistry([]Tool{tool}))
	res := r.Run(context.Background(), Call{ID: "1", Name: "bin"}, testEnv(t))
	wantText(t, res, "ok \uFFFD\uFFFD red")
}

// A tool that printed and then ignores the cancel past the grace keeps
// what it printed: the output is the runner's, not the stuck tool's.
func TestRunnerKeepsOutputOfAToolThatIgnoresTheCancel(t *testing.T) {
	old := lateResultGrace
	lateResultGrace = 20 * time.Millisecond
	defer func() { lateResultGrace = old }()
	stuck := make(chan struct{})
	defer close(stuck)
	printed := make(chan struct{})
	r := NewRunner(NewRegistry([]Tool{fakeTool{def: Definition{Name: "stuck"}, run: func(_ context.Context, c Call, env Env) Result {
		env.Sink(c.ID).Write([]byte("printed\n"))
		close(printed)
		<-stuck
		return Result{}
	}}}))
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-printed; cancel(ErrCancelled) }()
	res := r.Run(ctx, Call{ID: "1", Name: "stuck"}, testEnv(t))
	if !res.Cancelled || res.Text != "printed\n\n"+CancelledText {
		t.Errorf("got %+v", res)
	}
}
