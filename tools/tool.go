// Package tools is the tool contract and the runtime every tool shares
// (SPEC §5): the Tool interface and the optional behaviours a tool may add,
// the registry, the runner with limits, sandbox and output files, previews
// and targets. The built-ins are tools/builtin; plugins and MCP servers are
// tool sources (tools/plugin, tools/mcp). It imports no LSP types.
package tools

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// Definition describes a tool to the policy, the editor and the model.
type Definition struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the input object.
	Schema json.RawMessage
	// Source says where the tool comes from: "builtin", "plugin:NAME", "mcp:NAME".
	Source string
	// Annotations are informational hints (MCP tool annotations); never used to approve.
	Annotations map[string]any
	// PreviewTemplate, when set, is a Go text/template over the input map that
	// renders the inlay-hint preview (SPEC §5 custom tools); see Preview.
	PreviewTemplate string
}

// Call is one invocation, identified by the tool-use ID of the document.
type Call struct {
	ID    string
	Name  string
	Input map[string]any
}

// Env is where and how a call runs.
type Env struct {
	// Dir is the document's directory: relative paths resolve against it and bash runs in it.
	Dir string
	// WorkspaceRoot is the LSP workspace folder holding the document (else Dir).
	WorkspaceRoot string
	// Writable is the writable set (workspace root, document dir, temp dir, sandbox.writable).
	Writable []string
	// Sandbox configures bubblewrap for bash; Enabled false runs bash directly.
	Sandbox SandboxConfig
	// RestrictWrites makes write and edit refuse paths outside the writable
	// set. The server sets it from the sandbox.enabled setting, also when
	// bubblewrap is missing and bash runs unsandboxed after asking: the
	// refusal follows the setting, not whether bubblewrap works. (Sandbox.
	// Enabled implies it.)
	RestrictWrites bool
	// TempDir receives full-output files of truncated results ($TMPDIR or /tmp).
	TempDir string
	// StorePath is the document's result store (Flemma 0.12), which bash
	// gets as $FLEMMA_TOOLS_STORE_PATH ("": none).
	StorePath string
	// Timeout for non-bash tools (tools.defaultTimeout) and for bash (tools.bash.timeout)
	// when the input gives none; seconds.
	DefaultTimeout, BashTimeout int
	// Progress, when set, receives updates while the tool runs.
	Progress func(Progress)
	// BashCwd is `tools.bash.cwd`: where bash runs instead of Dir (relative to Dir).
	BashCwd string
	// Limits caps result text; the zero value means DefaultLimits.
	Limits Limits
	// Retries is tools.retries: how often a read-only call that failed
	// transiently (timeout, connection, 5xx) runs again (0: never).
	Retries int
	// RetryBase is the first backoff wait (0: DefaultRetryBase).
	RetryBase time.Duration
	// Hidden, when set, names paths (canonical) the policy denies reading
	// (read(private/**)): grep, find and ls walking a directory above
	// them skip them, as if they were not there.
	Hidden func(path string) bool
	// Target is where the call runs (SPEC §8); nil: this machine.
	Target *TargetEnv
	// OnOutput, when set, is given each attempt's output sink as the
	// attempt starts, so a caller can read what the call printed so far
	// (OutputSink.SoFar) while it runs: an ACP agent's terminal/output.
	OnOutput func(*OutputSink)

	// output is the call's output, owned by the runner's attempt (set by
	// execute): what a tool streamed into it survives a tool that does not
	// return after its cancel (Sink).
	output *OutputSink
}

// SandboxConfig is the `sandbox.*` settings, and this call's exceptions.
type SandboxConfig struct {
	// Enabled runs bash inside bubblewrap (the server sets it when
	// sandbox.enabled is "auto" or true and bubblewrap starts, or when it
	// is true: then a failure to start is the call's error).
	Enabled  bool
	Writable []string
	Network  bool
	// Env names variables passed in besides the allowlist (sandbox.env).
	Env []string
	// Bwrap is the bubblewrap binary (`sandbox.bwrap`); empty means "bwrap" on PATH.
	Bwrap string
	// Outside runs this one call outside the sandbox: the user approved it
	// with `sandbox=off` in this session (never from the document's text).
	Outside bool
}

// Progress is a running tool's state for `$/progress` and inlay hints: the
// time since it started and its last output line (bash: the last line it
// printed; grep: its latest match; web_fetch: how much it received; empty
// when a tool has nothing to show). Sent at most every 200 ms, only while a
// call runs longer than that.
type Progress struct {
	ElapsedMillis int64
	LastLine      string
}

// Result is what gets written back into the document.
type Result struct {
	Text    string
	IsError bool
	// Truncated is set when output limits cut the text; FullOutputPath then names the file.
	Truncated      bool
	FullOutputPath string
	// ExitCode of a process, nil when not a process or not started. A process
	// killed on timeout or cancel has one too: 137 (128+SIGKILL) as a rule.
	ExitCode *int
	// Cancelled is set when the call was stopped by the user (chatls.cancel).
	Cancelled bool
	// TimedOut is set when the call hit its timeout (bash's, or
	// tools.defaultTimeout for the others).
	TimedOut bool
	// Transient marks a failure worth repeating for a read-only tool: a
	// connection error or a 5xx answer (SPEC §5 "Retries").
	Transient bool
}

// Tool is something that can run a Call.
type Tool interface {
	Definition() Definition
	// Run executes an already validated call. It must honour ctx cancellation
	// and never panic on any input.
	Run(ctx context.Context, call Call, env Env) Result
}

// A tool may say more about itself by implementing the interfaces below;
// the runner, the previews and the targets ask the tool, never its name.

// Previewer gives a call's preview detail, shown after "name: " in inlay
// hints and code action titles (SPEC §3): a built-in's own format.
type Previewer interface {
	Preview(input map[string]any) string
}

// Effecter can say, before the call runs, what it would change — for the
// hover of a call waiting for approval (SPEC §5: previews that let a user
// decide without opening a terminal). It must not change anything.
type Effecter interface {
	Effect(ctx context.Context, call Call, env Env) string
}

// RetrySafer says whether a call that failed transiently may run again
// (SPEC §5 "Retries"). A built-in without it is never retried; other
// tools are when their MCP annotations say they only read.
type RetrySafer interface {
	RetrySafe(input map[string]any) bool
}

// SelfTimed is a tool that applies its own timeout (bash: the input's or
// tools.bash.timeout) instead of Env.DefaultTimeout.
type SelfTimed interface {
	TimesItself() bool
}

// Where a built-in runs on a target (SPEC §8). A built-in with none of
// these acts on this machine's files, so a remote target neither offers
// nor runs it; plugins and MCP tools run here wherever the target is.

// RemoteRunner is a built-in that reaches a remote target, through the
// target's shell, with the texts and limits it has here.
type RemoteRunner interface {
	RunRemote(ctx context.Context, call Call, env Env) Result
}

// PaneRunner is a built-in that runs in the pane of a target with tmux.
type PaneRunner interface {
	RunInPane(ctx context.Context, call Call, env Env) Result
	// PaneDefinition is d as a document in tmux session offers it.
	PaneDefinition(d Definition, session string) Definition
	// PaneInput splits off input what only the pane accepts, and checks
	// it; ok is false when input holds none of it.
	PaneInput(input map[string]any) (rest map[string]any, problems []ValidationError, ok bool)
}

// Fileless is a built-in that touches no files: on any target it runs here.
type Fileless interface{ Fileless() }

// PaneOnly is a built-in offered only where the target has tmux.
type PaneOnly interface{ PaneOnly() }

// AsCancelled is r as the result of a call the user cancelled: what the
// tool printed before the cancel stays when the tool kept it (bash does,
// as for a timeout), ending in CancelledText; otherwise CancelledText alone.
func (r Result) AsCancelled() Result {
	if !r.Cancelled || !strings.HasSuffix(r.Text, CancelledText) {
		r.Text = CancelledText
	}
	r.IsError, r.Cancelled = true, true
	return r
}
