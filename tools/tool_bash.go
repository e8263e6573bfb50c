package tools

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/chatls/chatls/internal/keyenv"
	"github.com/chatls/chatls/internal/procsup"
)

// defaultBashTimeout is tools.bash.timeout's default (seconds).
const defaultBashTimeout = 120

type bashTool struct{}

// TimesItself: the input's timeout, or tools.bash.timeout (bashSeconds).
func (bashTool) TimesItself() bool { return true }

func (bashTool) Preview(in map[string]any) string {
	command, _ := StringArg(in, "command")
	return "$ " + command
}

func (bashTool) RunRemote(ctx context.Context, call Call, env Env) Result {
	return bashOnTarget(ctx, call, env)
}

func (bashTool) RunInPane(ctx context.Context, call Call, env Env) Result {
	return bashInTmux(ctx, call, env)
}

// bashDefinition is built once: Definition is called per validation and preview.
var bashDefinition = sync.OnceValue(bashTool{}.definition)

func (bashTool) Definition() Definition { return bashDefinition() }

func (bashTool) definition() Definition {
	return Definition{
		Name: "bash",
		Description: "Execute a bash command in the document's directory. Returns stdout and stderr merged. " +
			"Output is truncated to the last 2000 lines or 50KB (whichever is hit first); " +
			"the full output is then saved to a file named in the result.",
		Source: "builtin",
		Schema: strictSchema(
			required("command", "string", "The bash command to run"),
			optional("timeout", "number", "Timeout in seconds (default: tools.bash.timeout, 120)").with("exclusiveMinimum", 0),
		),
	}
}

func (bashTool) Run(ctx context.Context, call Call, env Env) Result {
	command, _ := StringArg(call.Input, "command")
	if command == "" {
		return errorResult("No command provided")
	}
	seconds := bashSeconds(call, env)

	dir := env.Dir
	if env.BashCwd != "" {
		dir = readPath(env, env.BashCwd)
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return errorResult("Working directory %s does not exist", dir)
	}

	// stdin is /dev/null and pagers are cat, so nothing waits for a user.
	cmd, err := bashCommand(env, dir, command)
	if err != nil {
		return errorResult("Sandbox unavailable, command not run: %v", err)
	}
	sink := env.outputSinkFor(call.ID)
	var tick func(time.Duration)
	if env.Progress != nil {
		tick = func(elapsed time.Duration) {
			env.Progress(Progress{ElapsedMillis: elapsed.Milliseconds(), LastLine: sink.lastLine()})
		}
	}
	out := procsup.Run(ctx, cmd, sink, time.Duration(seconds*float64(time.Second)), tick)
	if out.StartErr != nil {
		return errorResult("Failed to start bash: %v", out.StartErr)
	}
	got := sink.finish()
	stopped := out.Cancelled || out.TimedOut
	if sandboxed(env) && stopped {
		// The notes go with the output, before the cancel or timeout line:
		// a cancelled result must end in CancelledText, or the runner would
		// take it for one that lost its output and drop what was printed.
		got.Text = appendSandboxNotes(got.Text, env.Sandbox.Network)
	}
	res := bashResult(got, out.ExitCode, out.Cancelled, out.TimedOut, seconds)
	if sandboxed(env) && !stopped {
		res.Text = appendSandboxNotes(res.Text, env.Sandbox.Network)
	} else if !sandboxed(env) && env.Sandbox.Outside {
		// A call the user let out may have linked files in ways the
		// directory times of the cached scans do not show (a new name
		// outside for a file inside).
		InvalidateSandboxScans()
	}
	return res
}

func bwrapPath(env Env) string {
	if env.Sandbox.Bwrap == "" {
		return defaultBwrap
	}
	return env.Sandbox.Bwrap
}

// sandboxed says whether this call runs inside bubblewrap.
func sandboxed(env Env) bool { return env.Sandbox.Enabled && !env.Sandbox.Outside }

// bashCommand is the process of a bash call: inside bubblewrap with the
// cleared environment, or, outside the sandbox, bash with chatls's
// environment less the provider keys.
func bashCommand(env Env, dir, command string) (*exec.Cmd, error) {
	if !sandboxed(env) {
		argv := []string{"bash", "-c", command}
		if env.Sandbox.Enabled && env.Sandbox.Outside && !env.Sandbox.Network && SandboxAvailable(env.Sandbox.Bwrap) == nil {
			// sandbox=off without network=on: the host's files and
			// environment, the network still off.
			argv = append([]string{bwrapPath(env), "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", "--chdir", dir, "--"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(keyenv.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
		return cmd, nil
	}
	if err := SandboxAvailable(env.Sandbox.Bwrap); err != nil {
		return nil, err
	}
	bwrap := bwrapPath(env)
	writable := writableDirs(env)
	home, _ := os.UserHomeDir()
	emptyFile() // made before the scan, so the scan masks the directory holding it
	view := planSandboxView(writable, home)
	args := bwrapArgs(env, dir, writable, view, env.Sandbox.Network)
	cmd := exec.Command(bwrap, append(args, "bash", "-c", command)...)
	cmd.Dir = dir
	cmd.Env = sandboxEnviron(env, os.Environ())
	return cmd, nil
}

// bashResult is the text of a finished bash call, wherever it ran.
func bashResult(got sinkResult, code int, cancelled, timedOut bool, seconds float64) Result {
	res := Result{Text: got.Text, Truncated: got.Truncated, FullOutputPath: got.FullPath, ExitCode: &code}
	if cancelled {
		// What it printed stays, as for a timeout: the user stopped it to
		// look at something.
		res.Text, res.IsError, res.Cancelled = appendParagraph(res.Text, CancelledText), true, true
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
func bashSeconds(call Call, env Env) float64 {
	seconds := float64(env.BashTimeout)
	if t, ok := NumberArg(call.Input, "timeout"); ok && t > 0 {
		seconds = t
	}
	if seconds <= 0 {
		seconds = defaultBashTimeout
	}
	return math.Min(seconds, 7*24*3600)
}

func appendParagraph(text, p string) string {
	if text == "" {
		return p
	}
	return text + "\n\n" + p
}

func formatSeconds(s float64) string {
	return strconv.FormatFloat(s, 'f', -1, 64)
}

func errorResult(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}
