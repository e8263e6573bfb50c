package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunnerRejectsInvalidInputWithoutRunning(t *testing.T) {
	var ran atomic.Bool
	tool := fakeTool{
		def: Definition{Name: "edit2", Schema: strictSchema(required("path", "string", ""), required("newText", "string", ""))},
		run: func(context.Context, Call, Env) Result { ran.Store(true); return Result{Text: "ran"} },
	}
	r := NewRunner(NewRegistry([]Tool{tool}), 1)
	res := r.Run(context.Background(), Call{ID: "1", Name: "edit2", Input: map[string]any{"path": 42.0}}, testEnv(t))
	wantText(t, res, "Invalid input for edit2:\n- newText: missing required property\n- path: expected string, got number")
	if !res.IsError || ran.Load() {
		t.Errorf("IsError=%v ran=%v", res.IsError, ran.Load())
	}
}

func TestRunnerUnknownToolSuggests(t *testing.T) {
	r := NewRunner(NewRegistry(Builtins(BuiltinOptions{})), 1)
	res := r.Run(context.Background(), Call{ID: "1", Name: "reed", Input: map[string]any{"path": "x"}}, testEnv(t))
	wantText(t, res, "Unknown tool: reed (did you mean read?)")
}

func TestRunnerRecoversPanics(t *testing.T) {
	tool := fakeTool{def: Definition{Name: "boom"}, run: func(context.Context, Call, Env) Result { panic("kaboom") }}
	r := NewRunner(NewRegistry([]Tool{tool}), 1)
	res := r.Run(context.Background(), Call{ID: "1", Name: "boom"}, testEnv(t))
	if !res.IsError || !strings.Contains(res.Text, "internal error: kaboom") {
		t.Errorf("got %+v", res)
	}
}

func TestRunnerBoundsConcurrency(t *testing.T) {
	const calls, bound = 10, 3
	var active, peak atomic.Int32
	started := make(chan string, calls)
	release := make(chan struct{})
	tool := fakeTool{def: Definition{Name: "slow"}, run: func(ctx context.Context, c Call, _ Env) Result {
		n := active.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		started <- c.ID
		<-release
		active.Add(-1)
		return Result{Text: "done " + c.ID}
	}}
	r := NewRunner(NewRegistry([]Tool{tool}), bound)
	var wg sync.WaitGroup
	results := make([]Result, calls)
	for i := range calls {
		wg.Go(func() {
			results[i] = r.Run(context.Background(), Call{ID: fmt.Sprint(i), Name: "slow"}, testEnv(t))
		})
	}
	for range bound {
		<-started
	}
	// Every call is in flight; exactly `bound` hold a slot, the rest queue.
	waitUntil(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.waiters) == calls-bound
	})
	if got := len(r.Running()); got != calls {
		t.Errorf("Running() has %d calls, want %d", got, calls)
	}
	if len(started) != 0 || active.Load() != bound {
		t.Fatalf("%d running beyond the bound", len(started))
	}
	// Raising the bound live lets one more start at once.
	r.SetMaxConcurrent(bound + 1)
	<-started
	close(release)
	wg.Wait()
	if peak.Load() != bound+1 {
		t.Errorf("peak concurrency %d, want %d", peak.Load(), bound+1)
	}
	for i, res := range results {
		if res.Text != fmt.Sprintf("done %d", i) {
			t.Errorf("result %d = %q", i, res.Text)
		}
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

func TestRunnerCancelQueuedCall(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	tool := fakeTool{def: Definition{Name: "slow"}, run: func(ctx context.Context, c Call, _ Env) Result {
		started <- struct{}{}
		<-release
		return Result{Text: "done"}
	}}
	r := NewRunner(NewRegistry([]Tool{tool}), 1)
	first := make(chan Result)
	go func() { first <- r.Run(context.Background(), Call{ID: "a", Name: "slow"}, testEnv(t)) }()
	<-started
	queued := make(chan Result)
	go func() { queued <- r.Run(context.Background(), Call{ID: "b", Name: "slow"}, testEnv(t)) }()
	waitUntil(t, func() bool { return len(r.Running()) == 2 })
	if !r.Cancel("b") {
		t.Fatal("Cancel(b) = false")
	}
	res := <-queued
	if !res.Cancelled || res.Text != CancelledText {
		t.Errorf("queued call: %+v", res)
	}
	close(release)
	if res := <-first; res.Text != "done" {
		t.Errorf("sibling: %+v", res)
	}
	if r.Cancel("a") {
		t.Error("Cancel of a finished call reported true")
	}
	if len(started) != 0 {
		t.Error("the cancelled queued call ran")
	}
}

func TestRunnerRejectsDuplicateIDInFlight(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	tool := fakeTool{def: Definition{Name: "slow"}, run: func(ctx context.Context, c Call, _ Env) Result {
		close(started)
		<-release
		return Result{Text: "done"}
	}}
	r := NewRunner(NewRegistry([]Tool{tool}), 4)
	done := make(chan Result)
	go func() { done <- r.Run(context.Background(), Call{ID: "same", Name: "slow"}, testEnv(t)) }()
	<-started
	res := r.Run(context.Background(), Call{ID: "same", Name: "slow"}, testEnv(t))
	if !res.IsError || !strings.Contains(res.Text, "already running") {
		t.Errorf("second run: %+v", res)
	}
	close(release)
	<-done
}

func TestRunnerTimesOutToolsThatIgnoreContext(t *testing.T) {
	old := lateResultGrace
	lateResultGrace = 20 * time.Millisecond
	defer func() { lateResultGrace = old }()
	stuck := make(chan struct{})
	var quickRan atomic.Bool
	r := NewRunner(NewRegistry([]Tool{
		fakeTool{def: Definition{Name: "stuck"}, run: func(context.Context, Call, Env) Result { <-stuck; return Result{} }},
		fakeTool{def: Definition{Name: "quick"}, run: func(context.Context, Call, Env) Result { quickRan.Store(true); return Result{Text: "done"} }},
	}), 1)
	env := testEnv(t)
	env.DefaultTimeout = 1
	res := r.Run(context.Background(), Call{ID: "1", Name: "stuck"}, env)
	wantText(t, res, "Tool stuck timed out after 1 seconds.")
	if !res.TimedOut || !res.IsError {
		t.Errorf("TimedOut=%v IsError=%v", res.TimedOut, res.IsError)
	}

	// Abandoned but still running: it keeps its slot and its ID.
	if got := r.Running(); len(got) != 1 || got[0] != "1" {
		t.Errorf("Running() = %v", got)
	}
	again := r.Run(context.Background(), Call{ID: "1", Name: "quick"}, env)
	wantText(t, again, "Tool call 1 is already running; it was not started twice.")
	queued := make(chan Result)
	go func() { queued <- r.Run(context.Background(), Call{ID: "2", Name: "quick"}, env) }()
	waitUntil(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.waiters) == 1
	})
	if quickRan.Load() {
		t.Fatal("a call ran beyond the bound while an abandoned tool was still running")
	}
	// The stuck tool returns at last: the queued call gets the slot.
	close(stuck)
	wantText(t, <-queued, "done")
	waitUntil(t, func() bool { return len(r.Running()) == 0 })

	// Cancel works on a tool that ignores it, too.
	stuck2 := make(chan struct{})
	defer close(stuck2)
	r2 := NewRunner(NewRegistry([]Tool{fakeTool{def: Definition{Name: "stuck"}, run: func(context.Context, Call, Env) Result { <-stuck2; return Result{} }}}), 1)
	go func() {
		waitUntil(t, func() bool { return len(r2.Running()) == 1 })
		r2.Cancel("3")
	}()
	if res := r2.Run(context.Background(), Call{ID: "3", Name: "stuck"}, testEnv(t)); !res.Cancelled {
		t.Errorf("got %+v", res)
	}
}

func TestRunnerLimitsLongResults(t *testing.T) {
	var lines []string
	for i := 1; i <= 3000; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	full := strings.Join(lines, "\n")
	tool := fakeTool{def: Definition{Name: "chatty", Source: "plugin:x"}, run: func(context.Context, Call, Env) Result { return Result{Text: full} }}
	r := NewRunner(NewRegistry(nil), 1)
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
	r := NewRunner(NewRegistry([]Tool{tool}), 1)
	res := r.Run(context.Background(), Call{ID: "1", Name: "bin"}, testEnv(t))
	wantText(t, res, "ok \uFFFD\uFFFD red")
}

func TestRunnerHugeArguments(t *testing.T) {
	env := testEnv(t)
	huge := strings.Repeat("x", 5<<20)
	res := run(t, env, "write", map[string]any{"path": "big.txt", "content": huge})
	wantText(t, res, "Successfully wrote 5242880 bytes to big.txt")
	res = run(t, env, "calculator", map[string]any{"expression": strings.Repeat("(", 20000)})
	if !res.IsError || !strings.Contains(res.Text, "expression: longer than 10000 characters") {
		t.Errorf("calculator: %.200s", res.Text)
	}
	res = run(t, env, "bash", map[string]any{"command": "echo " + strings.Repeat("y", 100000) + " | wc -c"})
	wantText(t, res, "100001")
	input, _ := json.Marshal(map[string]any{"path": strings.Repeat("a/", 100000)})
	res = run(t, env, "read", decode(t, string(input)))
	if !res.IsError {
		t.Errorf("read of a 200 KB path: %.200s", res.Text)
	}
}

func TestRunnerCancelAll(t *testing.T) {
	started := make(chan struct{}, 2)
	tool := fakeTool{def: Definition{Name: "wait"}, run: func(ctx context.Context, c Call, _ Env) Result {
		started <- struct{}{}
		<-ctx.Done()
		return Result{Text: "stopped"}
	}}
	r := NewRunner(NewRegistry([]Tool{tool}), 4)
	results := make(chan Result, 2)
	for _, id := range []string{"x", "y"} {
		go func() { results <- r.Run(context.Background(), Call{ID: id, Name: "wait"}, testEnv(t)) }()
	}
	<-started
	<-started
	if n := r.CancelAll(); n != 2 {
		t.Errorf("CancelAll = %d", n)
	}
	for range 2 {
		if res := <-results; !res.Cancelled {
			t.Errorf("%+v", res)
		}
	}
}
