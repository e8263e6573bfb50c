package acp

import (
	"context"
	"encoding/json"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Client answers the agent's requests; the session implements it (SPEC
// §12: permissions become approvals in the text; files and terminals are
// chatls's own tool calls, under its policy, sandbox and limits). Each
// method may block as long as the user takes; ctx ends when the turn is
// cancelled or the agent gives up on the request.
type Client interface {
	// RequestPermission returns the chosen option's ID, or cancelled when
	// the turn was cancelled before a choice.
	RequestPermission(ctx context.Context, req PermissionRequest) (optionID string, cancelled bool, err error)
	// ReadTextFile reads path (absolute) from line (1-based; 0: the start),
	// at most limit lines (0: all), as the editor has it.
	ReadTextFile(ctx context.Context, path string, line, limit int) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error

	CreateTerminal(ctx context.Context, req TerminalRequest) (id string, err error)
	TerminalOutput(ctx context.Context, id string) (TerminalOutput, error)
	WaitForTerminalExit(ctx context.Context, id string) (ExitStatus, error)
	KillTerminal(ctx context.Context, id string) error
	ReleaseTerminal(ctx context.Context, id string) error
}

// PermissionRequest is the agent asking before one of its tool calls.
type PermissionRequest struct {
	SessionID string
	ToolCall  PermissionToolCall
	Options   []Option
}

// PermissionToolCall is the call a permission is asked for (the agent has
// usually reported it with a tool_call just before).
type PermissionToolCall struct {
	ID, Title, Kind string
	RawInput        json.RawMessage
}

// Option is one answer the agent offers: the code actions show Name.
type Option struct {
	ID   string
	Name string // "Allow always"
	Kind string // allow_once, allow_always, reject_once, reject_always
}

// The option kinds, as ACP names them.
const (
	AllowOnce    = "allow_once"
	AllowAlways  = "allow_always"
	RejectOnce   = "reject_once"
	RejectAlways = "reject_always"
)

// OptionOfKind is the first option of one of kinds, in the order given:
// chatls's policy answers approve with allow_once and deny with reject_once
// (SPEC §12), falling back to the always forms when the agent offers only those.
func OptionOfKind(opts []Option, kinds ...string) (Option, bool) {
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return o, true
			}
		}
	}
	return Option{}, false
}

// TerminalRequest is terminal/create: a command for chatls to run.
type TerminalRequest struct {
	SessionID       string
	Command         string
	Args            []string
	Env             []string // NAME=value, added to the command's environment
	Cwd             string   // absolute; "": the session's
	OutputByteLimit int      // 0: chatls's own limit; else keep the last this many bytes
}

// TerminalOutput is a terminal's output so far; Exit is nil while it runs.
type TerminalOutput struct {
	Output    string
	Truncated bool
	Exit      *ExitStatus
}

// ExitStatus is how a terminal's command ended: a code, or a signal's name.
type ExitStatus struct {
	Code   *int
	Signal string
}

// ShellLine is the line a shell runs for terminal/create. Agents differ:
// @zed-industries/claude-code-acp sends the whole shell line in command
// with no args, others a program and its arguments. So command is kept as
// it is (it may hold pipes and quotes the agent meant), and args are
// quoted for bash after it.
func ShellLine(command string, args []string) string {
	if len(args) == 0 {
		return command
	}
	parts := []string{command}
	for _, a := range args {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil { // a NUL byte: no shell can pass it
			q = "''"
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " ")
}
