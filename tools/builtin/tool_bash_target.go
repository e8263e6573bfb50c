package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

// errBashTimeout ends a remote bash call's context when its time is up.
var errBashTimeout = errors.New("bash timed out")

// RunRemote runs bash on a remote target with the local bash's texts,
// limits (the full-output file stays on this machine), timeout, cancel
// and progress.
func (bashTool) RunRemote(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	command, _ := tools.StringArg(call.Input, "command")
	if command == "" {
		return errorResult("No command provided")
	}
	seconds := bashSeconds(call, env)
	t := env.Target
	sink := env.Sink(call.ID)
	runCtx, cancel := context.WithTimeoutCause(ctx, time.Duration(seconds*float64(time.Second)), errBashTimeout)
	defer cancel()
	stop := tools.ReportProgress(env.Progress, sink.LastLine)
	p, err := target.Run(runCtx, t.Machine, command, t.Root, sink)
	stop()
	switch {
	case errors.Is(err, target.ErrNoDir):
		return errorResult("Working directory %s does not exist on %s", t.Root, t.Name)
	case err != nil:
		got := sink.Finish()
		return tools.Result{Text: appendParagraph(got.Text, capitalize(err.Error())+"."), IsError: true, Truncated: got.Truncated, FullOutputPath: got.FullPath}
	}
	timedOut := p.Killed && errors.Is(context.Cause(runCtx), errBashTimeout) && ctx.Err() == nil
	return bashResult(sink.Finish(), p.Code, p.Killed && !timedOut, timedOut, seconds)
}

// RunInPane runs bash in the target's tmux pane (SPEC §8): the command
// is checked first for what would break the shared shell, `wait` says
// how long to wait, the timeout sends C-c.
func (bashTool) RunInPane(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	command, _ := tools.StringArg(call.Input, "command")
	if command == "" {
		return errorResult("No command provided")
	}
	if why := paneBreaker(command); why != "" {
		return errorResult("Not run in the shared tmux pane: %s. Run it in a child shell instead, e.g. bash -c '…'.", why)
	}
	wait, err := waitArg(call.Input["wait"])
	if err != "" {
		return errorResult("%s", err)
	}
	seconds := bashSeconds(call, env)
	tm := env.Target.Tmux
	record, stop := tools.TickProgress(env.Progress)
	paneLine := func(line string) { record(tools.Progress{LastLine: line}) }
	startDir := ""
	if env.Target.Machine == nil {
		startDir = env.Dir // the local target starts where the document is
	}
	r, runErr := tm.RunCommandFrom(ctx, startDir, command, wait, time.Duration(seconds*float64(time.Second)), paneLine)
	stop()
	if runErr != nil {
		if errors.Is(runErr, target.ErrNoTmux) {
			return errorResult("tmux is not installed on target %s; install it or set tmux = false for this target", env.Target.Label())
		}
		return errorResult("%s", capitalize(runErr.Error()))
	}
	sink := env.Sink(call.ID)
	sink.Write([]byte(r.Output))
	got := sink.Finish()
	text := got.Text
	if r.ScrolledOut {
		text = appendParagraph("[The start of the output has left the pane's history.]", text)
	}
	res := tools.Result{Text: text, Truncated: got.Truncated, FullOutputPath: got.FullPath}
	where := fmt.Sprintf("tmux session %s (pane %s)", tm.SessionName(), r.Pane)
	switch {
	case ctx.Err() != nil: // stopped with C-c; what it printed stays
		res.Text, res.IsError, res.Cancelled = appendParagraph(res.Text, tools.CancelledText), true, true
	case r.TimedOut:
		res.Text = appendParagraph(res.Text, fmt.Sprintf("Command timed out after %s seconds; C-c was sent.", formatSeconds(seconds)))
		if r.Running {
			res.Text += fmt.Sprintf(" It is still running in %s.", where)
		}
		res.IsError, res.TimedOut = true, true
	case r.Running && r.Output == "" && !wait.Forever && wait.For <= 0:
		res.Text = fmt.Sprintf("Started in %s. Read its output with capture_pane; stop it with send_keys [\"C-c\"].", where)
	case r.Running:
		res.Text = appendParagraph(res.Text, fmt.Sprintf("[Still running in %s after %s seconds. Read more with capture_pane; stop it with send_keys [\"C-c\"].]", where, formatSeconds(wait.For.Seconds())))
	default:
		code := r.Code
		res.ExitCode = &code
		if strings.TrimSpace(res.Text) == "" {
			res.Text = "(no output)"
		}
		if code != 0 {
			res.Text += fmt.Sprintf("\n\nCommand exited with code %d", code)
			res.IsError = true
		}
	}
	if r.Notice != "" {
		res.Text = appendParagraph(r.Notice, res.Text)
	}
	return res
}

// waitArg reads bash's `wait` (tmux only): true (default), false, or seconds.
func waitArg(v any) (target.Wait, string) {
	switch w := v.(type) {
	case nil:
		return target.Wait{Forever: true}, ""
	case bool:
		return target.Wait{Forever: w}, ""
	case float64:
		if w <= 0 {
			return target.Wait{}, ""
		}
		return target.Wait{For: time.Duration(w * float64(time.Second))}, ""
	}
	return target.Wait{}, "wait must be true, false or a number of seconds"
}

// bashWaitDefinition is bash's definition in a tmux pane, with `wait`.
var bashWaitDefinition = sync.OnceValue(func() tools.Definition {
	d := bashDefinition()
	var schema map[string]any
	json.Unmarshal(d.Schema, &schema)
	props := schema["properties"].(map[string]any)
	props["wait"] = map[string]any{"type": []string{"boolean", "number", "null"},
		"description": "true (default): wait until the command ends or times out; false: start it and return at once; a number: wait that many seconds, then return what it printed so far while it keeps running"}
	if req, ok := schema["required"].([]any); ok {
		schema["required"] = append(req, "wait")
	}
	d.Schema, _ = json.Marshal(schema)
	return d
})

// PaneDefinition: bash with `wait`, running in the pane's shell.
func (bashTool) PaneDefinition(d tools.Definition, session string) tools.Definition {
	d.Schema = bashWaitDefinition().Schema
	d.Description = strings.Replace(d.Description, "in the document's directory",
		"in the shell of tmux session "+session+" (its directory and variables persist between calls)", 1)
	return d
}

// PaneInput splits bash's `wait` off the input: the registry's bash has
// no such property.
func (bashTool) PaneInput(input map[string]any) (rest map[string]any, problems []tools.ValidationError, ok bool) {
	w, has := input["wait"]
	if !has {
		return input, nil, false
	}
	if _, msg := waitArg(w); msg != "" {
		problems = []tools.ValidationError{{Path: []string{"wait"}, Message: "wait: " + msg}}
	}
	return withoutKey(input, "wait"), problems, true
}

func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}
