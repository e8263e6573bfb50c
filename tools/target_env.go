package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sync"

	"github.com/chatls/chatls/tools/target"
)

// TargetEnv is where a call runs when it is not plainly this machine
// (SPEC §8): a machine reached through a shell, optionally through tmux.
type TargetEnv struct {
	Name string
	// Machine is nil for the local target (the file tools then touch
	// this machine directly, as without a target).
	Machine target.Machine
	// Root is the working directory on the target ("" = the login
	// directory; the local target uses the document's directory).
	Root string
	// Tmux, when set, runs bash in the target's tmux session.
	Tmux *target.Tmux
	// Problem, when set, is why the chosen target cannot be used: every
	// call fails with it (never runs here instead).
	Problem string
	// failures remembers the last failing tmux call (loopGuard).
	failures *lastFailure
}

// BrokenTarget is a chosen target that cannot be used.
func BrokenTarget(name, problem string) *TargetEnv {
	return &TargetEnv{Name: name, Problem: problem}
}

// Remote says the calls leave this machine.
func (t *TargetEnv) Remote() bool {
	return t != nil && (t.Problem != "" || t.Machine != nil && t.Machine.Kind() != "local")
}

// remoteRuns are the built-ins that reach a remote target, each through
// the target's shell with the local tool's texts and limits.
var remoteRuns = map[string]func(context.Context, Call, Env) Result{
	"bash": bashOnTarget, "read": readOnTarget, "write": writeOnTarget, "edit": editOnTarget,
	"ls": lsOnTarget, "find": findOnTarget, "grep": grepOnTarget,
}

// filelessBuiltins touch no files: on any target they run here. Every
// other built-in (mkdir, copy, move, delete, the git and LSP tools) would
// act on this machine's files, so a remote target neither offers nor runs it.
var filelessBuiltins = map[string]bool{"calculator": true, "time": true, "web_fetch": true}

// TmuxTools appear only where the target has tmux.
var TmuxTools = map[string]bool{"capture_pane": true, "send_keys": true}

// OffersOnTarget says whether a tool is offered on t (builtin: it is one
// of chatls's own; plugins and MCP tools run here wherever the target is).
func OffersOnTarget(t *TargetEnv, name string, builtin bool) bool {
	if TmuxTools[name] {
		return t != nil && t.Tmux != nil
	}
	if !builtin || !t.Remote() {
		return true
	}
	return remoteRuns[name] != nil || filelessBuiltins[name]
}

// runOnTarget runs the call where env.Target says; ok false means the
// tool runs as it would without a target.
func runOnTarget(ctx context.Context, tool Tool, call Call, env Env) (Result, bool) {
	t := env.Target
	if t == nil {
		return Result{}, false
	}
	if t.Problem != "" {
		return errorResult("%s", capitalize(t.Problem)), true
	}
	if call.Name == "bash" && t.Tmux != nil {
		return t.ranOn(t.guardLoop(call, func() Result { return bashInTmux(ctx, call, env) })), true
	}
	if TmuxTools[call.Name] {
		if t.Tmux == nil {
			return errorResult("%s needs a target with tmux = true (this document's target %s has none)", call.Name, targetLabel(t.Name)), true
		}
		return t.ranOn(t.guardLoop(call, func() Result { return tool.Run(ctx, call, env) })), true
	}
	if !t.Remote() {
		return Result{}, false
	}
	if run := remoteRuns[call.Name]; run != nil {
		return t.ranOn(run(ctx, call, env)), true
	}
	if tool.Definition().Source == "builtin" && !OffersOnTarget(t, call.Name, true) {
		return errorResult("%s does not run on target %s: it would act on this machine's files. On a target use bash, read, write, edit, ls, find and grep.", call.Name, t.Name), true
	}
	return Result{}, false
}

// RanOnPrefix starts the result of a call on a remote target (SPEC §8:
// results say where they ran when it is not this machine).
const RanOnPrefix = "[on target %s]\n"

func (t *TargetEnv) ranOn(r Result) Result {
	if t.Remote() {
		r.Text = fmt.Sprintf(RanOnPrefix, t.Name) + r.Text
	}
	return r
}

// targetLabel names a target in texts; the local target has no name.
func targetLabel(name string) string {
	if name == "" {
		return "local"
	}
	return name
}

// lastFailure is the last failing call on a tmux target: the same call
// again right after is answered with that error instead of running into
// the same wall (a model looping on a broken pane).
type lastFailure struct {
	mu    sync.Mutex
	key   string
	text  string
	valid bool
}

// loopNote ends a repeated failure's result.
const loopNote = "[This call is identical to the previous one, which failed; it was not run again. Change the command or its input to try again.]"

func (t *TargetEnv) guardLoop(call Call, run func() Result) Result {
	if t.failures == nil {
		return run()
	}
	data, _ := json.Marshal(map[string]any{"name": call.Name, "input": call.Input})
	key := string(data)
	t.failures.mu.Lock()
	if t.failures.valid && t.failures.key == key {
		text := t.failures.text
		t.failures.mu.Unlock()
		return Result{Text: appendParagraph(text, loopNote), IsError: true}
	}
	t.failures.mu.Unlock()
	res := run()
	t.failures.mu.Lock()
	t.failures.valid, t.failures.key, t.failures.text = res.IsError && !res.Cancelled, key, res.Text
	t.failures.mu.Unlock()
	return res
}

// NewTargetEnv builds the target of settings name; failures are shared
// per target so the loop guard sees consecutive calls.
func NewTargetEnv(name string, m target.Machine, root string, tm *target.Tmux) *TargetEnv {
	return &TargetEnv{Name: name, Machine: m, Root: root, Tmux: tm, failures: &lastFailure{}}
}

// remotePath is p as the target resolves it, for texts: relative to the
// root.
func remotePath(t *TargetEnv, p string) string {
	if p == "" || path.IsAbs(p) || t.Root == "" || p[0] == '~' {
		return p
	}
	return path.Join(t.Root, p)
}

// linkError is the result of a call whose target could not be reached
// or whose connection dropped (the call is not repeated).
func linkError(err error) Result {
	return errorResult("%s", capitalize(err.Error()))
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-32) + s[1:]
}

// Close ends what the target holds open (an SSH master connection).
func (t *TargetEnv) Close() {
	if t != nil && t.Machine != nil {
		t.Machine.Close()
	}
}
