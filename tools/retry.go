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

// readOnlyBuiltins are the built-ins that only look: safe to run again.
var readOnlyBuiltins = map[string]bool{"read": true, "grep": true, "find": true, "ls": true, "web_fetch": true,
	"git_status": true, "git_diff": true, "git_log": true,
	"diagnostics": true, "symbols": true, "hover": true, "definition": true, "references": true}

// RetrySafe says whether a call may run again after a transient failure
// (SPEC §5 "Retries"): a read-only built-in, a branch listing, or an MCP
// tool its server annotates readOnlyHint or idempotentHint. Nothing that
// can change state — bash, write, edit, the dangerous tools, plugins and
// unannotated MCP tools — ever is.
func RetrySafe(def Definition, input map[string]any) bool {
	if def.Source == "builtin" {
		return readOnlyBuiltins[def.Name] || def.Name == "git_branch" && input["create"] != true
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
			ctx.Err() == nil && RetrySafe(tool.Definition(), call.Input)
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
