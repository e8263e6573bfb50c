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

// OffersOnTarget says whether a tool is offered on t (builtin: it is one
// of chatls's own; plugins and MCP tools run here wherever the target is).
func OffersOnTarget(t *TargetEnv, name string, builtin bool) bool {
	tool := builtinNamed(name)
	if isPaneOnly(tool) {
		return t != nil && t.Tmux != nil
	}
	if !builtin || !t.Remote() {
		return true
	}
	return isRemoteRunner(tool) || isFileless(tool)
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
	if p, ok := tool.(PaneRunner); ok && t.Tmux != nil {
		return t.ranOn(t.guardLoop(call, func() Result { return p.RunInPane(ctx, call, env) })), true
	}
	if isPaneOnly(tool) {
		if t.Tmux == nil {
			return errorResult("%s needs a target with tmux = true (this document's target %s has none)", call.Name, t.Label()), true
		}
		return t.ranOn(t.guardLoop(call, func() Result { return tool.Run(ctx, call, env) })), true
	}
	if !t.Remote() {
		return Result{}, false
	}
	if r, ok := tool.(RemoteRunner); ok {
		return t.ranOn(r.RunRemote(ctx, call, env)), true
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

// Label names the target in texts; the local target has no name.
func (t *TargetEnv) Label() string {
	if t.Name == "" {
		return "local"
	}
	return t.Name
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

// LoopNote ends a repeated failure's result.
const LoopNote = "[This call is identical to the previous one, which failed; it was not run again. Change the command or its input to try again.]"

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
		return Result{Text: appendParagraph(text, LoopNote), IsError: true}
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

// RemotePath is p as the target resolves it, for texts: relative to the
// root.
func (t *TargetEnv) RemotePath(p string) string {
	if p == "" || path.IsAbs(p) || t.Root == "" || p[0] == '~' {
		return p
	}
	return path.Join(t.Root, p)
}

// Close ends what the target holds open (an SSH master connection).
func (t *TargetEnv) Close() {
	if t != nil && t.Machine != nil {
		t.Machine.Close()
	}
}
