package tools

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultRetries is tools.retries' default; DefaultRetryBase the first wait.
const (
	DefaultRetries   = 2
	DefaultRetryBase = 500 * time.Millisecond
)

// RetrySafe says whether a call of t may run again after a transient
// failure (SPEC §5 "Retries"): a built-in that says so (RetrySafer: the
// read-only ones, a branch listing), or an MCP tool its server annotates
// readOnlyHint or idempotentHint. Nothing that can change state — bash,
// write, edit, the dangerous tools, plugins and unannotated MCP tools —
// ever is.
func RetrySafe(t Tool, input map[string]any) bool {
	if r, ok := t.(RetrySafer); ok {
		return r.RetrySafe(input)
	}
	def := t.Definition()
	if def.Source == "builtin" {
		return false
	}
	return def.Annotations["readOnlyHint"] == true || def.Annotations["idempotentHint"] == true
}

// executeWithRetries runs the call, and again with exponential backoff
// while it fails transiently and is safe to repeat, up to env.Retries
// times; the result then says `(after N retries)`. finished runs once,
// when every attempt has really returned.
func (r *Runner) executeWithRetries(ctx context.Context, tool Tool, call Call, env Env, finished func()) Result {
	var mu sync.Mutex
	outstanding, ended := 0, false
	attemptDone := func() {
		mu.Lock()
		outstanding--
		last := ended && outstanding == 0
		mu.Unlock()
		if last {
			finished()
		}
	}
	defer func() {
		mu.Lock()
		ended = true
		last := outstanding == 0
		mu.Unlock()
		if last {
			finished()
		}
	}()
	wait := env.RetryBase
	if wait <= 0 {
		wait = DefaultRetryBase
	}
	for retries := 0; ; retries++ {
		mu.Lock()
		outstanding++
		mu.Unlock()
		res := r.execute(ctx, tool, call, env, attemptDone)
		again := res.IsError && (res.Transient || res.TimedOut) && !res.Cancelled && retries < env.Retries &&
			ctx.Err() == nil && RetrySafe(tool, call.Input)
		if !again {
			if retries > 0 {
				res.Text += fmt.Sprintf("\n\n(after %d retries)", retries)
			}
			return res
		}
		select {
		case <-time.After(wait << retries):
		case <-ctx.Done():
			return interrupted(ctx, res)
		}
	}
}
