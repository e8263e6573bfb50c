package builtin

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/chatls/chatls/internal/procsup"
	"github.com/chatls/chatls/tools"
)

// defaultBashTimeout is tools.bash.timeout's default (seconds).
const defaultBashTimeout = 120

// setupTries bounds the starts of one call whose sandbox set-up failed.
const setupTries = 3

type bashTool struct{}

var bashDefinition = define(tools.Definition{
	Name: "bash",
	Description: "Execute a bash command in the document's directory. Returns stdout and stderr merged. " +
		"Output is truncated to the last 2000 lines or 50KB (whichever is hit first); " +
		"the full output is then saved to a file named in the result.",
},
	required("command", "string", "The bash command to run"),
	optional("timeout", "number", "Timeout in seconds (default: tools.bash.timeout, 120)").with("exclusiveMinimum", 0),
)

func (bashTool) Definition() tools.Definition { return bashDefinition() }

// TimesItself: the input's timeout, or tools.bash.timeout (bashSeconds).
func (bashTool) TimesItself() bool { return true }

func (bashTool) Preview(in map[string]any) string {
	command, _ := tools.StringArg(in, "command")
	return "$ " + command
}

func (bashTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	command, _ := tools.StringArg(call.Input, "command")
	if command == "" {
		return errorResult("No command provided")
	}
	seconds := bashSeconds(call, env)

	dir := env.Dir
	if env.BashCwd != "" {
		dir = env.ReadPath(env.BashCwd)
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return errorResult("Working directory %s does not exist", dir)
	}

	sink := env.Sink(call.ID)
	var tick func(time.Duration)
	if env.Progress != nil {
		tick = func(elapsed time.Duration) {
			env.Progress(tools.Progress{ElapsedMillis: elapsed.Milliseconds(), LastLine: sink.LastLine()})
		}
	}
	var out procsup.Outcome
	for try := 1; ; try++ {
		// stdin is /dev/null and pagers are cat, so nothing waits for a user.
		cmd, setup, err := tools.SandboxCommand(env, dir, "bash", "-c", command)
		if err != nil {
			return errorResult("Sandbox unavailable, command not run: %v", err)
		}
		out = procsup.Run(ctx, cmd, sink, time.Duration(seconds*float64(time.Second)), tick)
		if out.StartErr != nil {
			setup.Close()
			return errorResult("Failed to start bash: %v", out.StartErr)
		}
		// bubblewrap gave up before the command started (a path it mounts
		// was removed meanwhile): nothing ran, so a fresh scan and another
		// try keep the call from failing for another program's cleanup.
		// Its error stays the result once the tries are used up.
		if !setup.Failed(out.ExitCode, out.Cancelled || out.TimedOut) || try == setupTries || !sink.Discard() {
			break
		}
		tools.InvalidateSandboxScans()
	}
	got := sink.Finish()
	stopped := out.Cancelled || out.TimedOut
	if env.Sandboxed() && stopped {
		// The notes go with the output, before the cancel or timeout line:
		// a cancelled result must end in CancelledText, or the runner would
		// take it for one that lost its output and drop what was printed.
		got.Text = tools.AppendSandboxNotes(got.Text, env.Sandbox.Network)
	}
	res := bashResult(got, out.ExitCode, out.Cancelled, out.TimedOut, seconds)
	if env.Sandboxed() && !stopped {
		res.Text = tools.AppendSandboxNotes(res.Text, env.Sandbox.Network)
	} else if !env.Sandboxed() && env.Sandbox.Outside {
		// A call the user let out may have linked files in ways the
		// directory times of the cached scans do not show (a new name
		// outside for a file inside).
		tools.InvalidateSandboxScans()
	}
	return res
}

// bashResult is the text of a finished bash call, wherever it ran.
func bashResult(got tools.SinkResult, code int, cancelled, timedOut bool, seconds float64) tools.Result {
	res := tools.Result{Text: got.Text, Truncated: got.Truncated, FullOutputPath: got.FullPath, ExitCode: &code}
	if cancelled {
		// What it printed stays, as for a timeout: the user stopped it to
		// look at something.
		res.Text, res.IsError, res.Cancelled = appendParagraph(res.Text, tools.CancelledText), true, true
		return res
	}
	if timedOut {
		res.Text = appendParagraph(res.Text, fmt.Sprintf("Command timed out after %s seconds.", formatSeconds(seconds)))
		res.IsError, res.TimedOut = true, true
		return res
	}
	if res.Text == "" {
		res.Text = "(no output)"
	}
	if code != 0 {
		res.Text += fmt.Sprintf("\n\nCommand exited with code %d", code)
		res.IsError = true
	}
	return res
}

// bashSeconds is the call's timeout: its input's, else tools.bash.timeout.
func bashSeconds(call tools.Call, env tools.Env) float64 {
	seconds := float64(env.BashTimeout)
	if t, ok := tools.NumberArg(call.Input, "timeout"); ok && t > 0 {
		seconds = t
	}
	if seconds <= 0 {
		seconds = defaultBashTimeout
	}
	return math.Min(seconds, 7*24*3600)
}

func formatSeconds(s float64) string {
	return strconv.FormatFloat(s, 'f', -1, 64)
}
