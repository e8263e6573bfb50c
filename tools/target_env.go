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

// Where names the target in results and previews ("" for this machine).
func (t *TargetEnv) Where() string {
	if t == nil {
		return ""
	}
	return t.Name
}

// localOnlyTools touch this machine's files however the call is written:
// on a remote target they would act on the wrong machine, so they refuse.
var localOnlyTools = map[string]bool{"mkdir": true, "copy": true, "move": true, "delete": true}

// TmuxTools appear only where the target has tmux.
var TmuxTools = map[string]bool{"capture_pane": true, "send_keys": true}

// OffersOnTarget says whether a built-in tool is offered on t.
func OffersOnTarget(t *TargetEnv, name string, builtin bool) bool {
	if TmuxTools[name] {
		return t != nil && t.Tmux != nil
	}
	if !builtin || !t.Remote() {
		return true
	}
	return !localOnlyTools[name] && !GitTool(name) && !isLSPToolName(name)
}

func isLSPToolName(name string) bool {
	return len(name) > 4 && name[:4] == "lsp_"
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
		return t.guardLoop(call, func() Result { return bashInTmux(ctx, call, env) }), true
	}
	if TmuxTools[call.Name] {
		if t.Tmux == nil {
			return errorResult("%s needs a target with tmux = true (this document's target %s has none)", call.Name, cmpName(t.Name)), true
		}
		return t.guardLoop(call, func() Result { return tool.Run(ctx, call, env) }), true
	}
	if !t.Remote() {
		return Result{}, false
	}
	switch call.Name {
	case "bash":
		return bashOnTarget(ctx, call, env), true
	case "read":
		return readOnTarget(ctx, call, env), true
	case "write":
		return writeOnTarget(ctx, call, env), true
	case "edit":
		return editOnTarget(ctx, call, env), true
	case "ls":
		return lsOnTarget(ctx, call, env), true
	case "find":
		return findOnTarget(ctx, call, env), true
	case "grep":
		return grepOnTarget(ctx, call, env), true
	}
	def := tool.Definition()
	if def.Source == "builtin" && !OffersOnTarget(t, call.Name, true) {
		return errorResult("%s does not run on target %s: it would act on this machine's files. On a target use bash, read, write, edit, ls, find and grep.", call.Name, t.Name), true
	}
	return Result{}, false
}

func cmpName(name string) string {
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

func linkError(t *TargetEnv, err error) Result {
	return errorResult("%s", fmt.Sprint(capitalize(err.Error())))
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-32) + s[1:]
}
