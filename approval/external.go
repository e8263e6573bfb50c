package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/clip"
	"github.com/chatls/chatls/internal/keyenv"
	"github.com/chatls/chatls/internal/procsup"
)

const defaultResolverTimeout = 2 * time.Second

// externalResolver is a program asked for a decision: it reads
// {tool, input, uri, id, cwd} on stdin and prints {"decision", "reason"}.
type externalResolver struct {
	name     string
	command  string
	args     []string
	priority int
	timeout  time.Duration
}

func newExternalResolver(r config.Resolver) (*externalResolver, error) {
	if r.Command == "" {
		return nil, fmt.Errorf("resolver %q has no command; set resolvers[].command to a program path", r.Name)
	}
	x := &externalResolver{name: r.Name, command: r.Command, args: r.Args, priority: 50, timeout: defaultResolverTimeout}
	if x.name == "" {
		x.name = r.Command
	}
	if r.Priority != nil {
		x.priority = *r.Priority
	}
	if r.TimeoutMs != nil && *r.TimeoutMs > 0 {
		x.timeout = time.Duration(*r.TimeoutMs) * time.Millisecond
	}
	return x, nil
}

type resolverRequest struct {
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
	URI   string         `json:"uri"`
	ID    string         `json:"id"`
	Cwd   string         `json:"cwd"`
}

type resolverReply struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

func (e *Engine) runExternal(ctx context.Context, call Call, env callEnv) []Step {
	var steps []Step
	cwd := env.docDir
	if call.Tool == "bash" && env.bashDir != "" {
		cwd = env.bashDir // where the command runs (tools.bash.cwd): its relative paths mean that
	}
	for _, x := range e.ext {
		step := Step{Resolver: "external:" + x.name, Priority: x.priority, Decision: Pass}
		d, reason, err := x.ask(ctx, call, cwd)
		if err != nil {
			e.log.Warn("external resolver skipped", zap.String("resolver", x.name), zap.Error(err))
			step.Reason = "skipped: " + err.Error()
		} else {
			step.Decision, step.Reason = d, reason
		}
		steps = append(steps, step)
	}
	return steps
}

// ask runs the program once. Timeouts, crashes and unreadable answers are
// errors: the resolver is skipped, never taken as an approval.
func (x *externalResolver) ask(ctx context.Context, call Call, cwd string) (d Decision, reason string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("resolver failed: %v", r)
		}
	}()
	req, err := json.Marshal(resolverRequest{Tool: call.Tool, Input: call.Input, URI: call.DocURI, ID: call.ID, Cwd: cwd})
	if err != nil {
		return Pass, "", fmt.Errorf("encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, x.command, x.args...)
	cmd.Dir = cwd
	cmd.Env = keyenv.Environ()
	cmd.Stdin = bytes.NewReader(req)
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = 64<<10, 4<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Under a supervisor like every process chatls starts: a timeout, or
	// chatls dying, ends the resolver and everything it started.
	procsup.Prepare(cmd)
	cmd.Cancel = func() error { procsup.Kill(cmd); return nil }
	cmd.WaitDelay = 200 * time.Millisecond
	runErr := cmd.Run()
	procsup.Kill(cmd) // releases the supervisor's lifeline
	if ctx.Err() == context.DeadlineExceeded {
		return Pass, "", fmt.Errorf("timed out after %s", x.timeout)
	}
	if runErr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return Pass, "", fmt.Errorf("%v: %s", runErr, msg)
		}
		return Pass, "", runErr
	}
	reply, err := parseReply(stdout.Bytes())
	if err != nil {
		return Pass, "", fmt.Errorf("unreadable answer %q (want one JSON object {\"decision\": \"approve|require_approval|deny|pass\"} and nothing else)", clip.Bytes(strings.TrimSpace(stdout.String()), 80))
	}
	switch strings.ToLower(reply.Decision) {
	case "approve", "allow":
		return Approve, reply.Reason, nil
	case "require_approval", "ask":
		return RequireApproval, reply.Reason, nil
	case "deny":
		return Deny, reply.Reason, nil
	case "pass", "":
		return Pass, reply.Reason, nil
	}
	return Pass, "", fmt.Errorf("unknown decision %q (want approve, require_approval, deny or pass)", reply.Decision)
}

// parseReply reads exactly one JSON object: anything after it but white
// space (a second object, "garbage", a truncated tail) makes the answer
// unreadable, so a confused resolver is skipped, never believed.
func parseReply(out []byte) (resolverReply, error) {
	var reply resolverReply
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&reply); err != nil {
		return reply, err
	}
	var rest json.RawMessage
	if err := dec.Decode(&rest); err != io.EOF {
		return reply, fmt.Errorf("trailing data after the answer")
	}
	return reply, nil
}

// limitedBuffer keeps at most max bytes; a chatty resolver can't fill memory.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
