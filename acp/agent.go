package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/chatls/chatls/internal/procsup"
)

// Spec says how to start an agent: providers.NAME = {type = "acp",
// command = [...], env = {...}} (SPEC §12, trusted settings only).
type Spec struct {
	Command []string          // program and arguments: {"claude-code-acp"}
	Env     map[string]string // added to chatls's environment
	Dir     string            // working directory; "" = chatls's

	// Timeout bounds each answer chatls waits for outside a prompt
	// (initialize, session/new, session/load); 0 = DefaultTimeout.
	Timeout time.Duration
	// Silence bounds how long a prompt turn may go without a word from the
	// agent while chatls is not busy with one of the agent's own requests;
	// 0 = DefaultSilence.
	Silence time.Duration
	// CancelGrace bounds the wait for the agent's answer after
	// session/cancel; 0 = DefaultCancelGrace.
	CancelGrace time.Duration

	Log *zap.Logger // nil: no logs
}

const (
	DefaultTimeout     = 60 * time.Second // npx may fetch the agent on its first start
	DefaultSilence     = 5 * time.Minute
	DefaultCancelGrace = 10 * time.Second
	closeGrace         = 5 * time.Second // for the agent to exit after its stdin closes
	stderrKept         = 16 << 10
)

// Agent is one running agent process and its ACP connection.
type Agent struct {
	spec   Spec
	name   string // the command as the user wrote it, for messages
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	conn   *sdk.Connection
	wire   *wire
	stderr *stderrRing
	client Client
	log    *zap.Logger

	// Caps is what the agent said it can do in initialize.
	Caps sdk.AgentCapabilities
	// Info names the agent and its version, when it said.
	Info *sdk.Implementation

	exited chan struct{} // closed once the process and its group are gone
	status string        // how it ended: "exited (status 1)"

	mu        sync.Mutex
	fault     *Fault
	faulted   chan struct{} // closed with the first fault
	sessions  map[string]*turn
	busy      int    // agent requests being handled: the agent waits on chatls
	delivered uint64 // session/update notifications handled
	cond      *sync.Cond
	closing   bool
}

// Start starts the agent in a process group of its own (stdin and stdout
// are the protocol, stderr is kept for error messages) and initializes it
// with chatls's capabilities: text files read and written, terminals.
func Start(ctx context.Context, spec Spec, client Client) (*Agent, error) {
	if len(spec.Command) == 0 || spec.Command[0] == "" {
		return nil, errors.New("the agent has no command: set command = [\"program\", …] in its provider")
	}
	if client == nil {
		return nil, errors.New("acp.Start needs a Client to answer the agent's requests")
	}
	if spec.Timeout <= 0 {
		spec.Timeout = DefaultTimeout
	}
	if spec.Silence <= 0 {
		spec.Silence = DefaultSilence
	}
	if spec.CancelGrace <= 0 {
		spec.CancelGrace = DefaultCancelGrace
	}
	log := spec.Log
	if log == nil {
		log = zap.NewNop()
	}
	a := &Agent{
		spec:     spec,
		name:     strings.Join(spec.Command, " "),
		stderr:   newStderrRing(stderrKept),
		client:   client,
		log:      log,
		exited:   make(chan struct{}),
		faulted:  make(chan struct{}),
		sessions: map[string]*turn{},
	}
	a.cond = sync.NewCond(&a.mu)
	if err := a.startProcess(); err != nil {
		return nil, err
	}
	if err := a.initialize(ctx); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *Agent) startProcess() error {
	path, err := exec.LookPath(a.spec.Command[0])
	if err != nil {
		return fmt.Errorf("cannot start the agent %q: %w (install it, or give its full path in command)", a.name, err)
	}
	cmd := exec.Command(path, a.spec.Command[1:]...)
	cmd.Dir = a.spec.Dir
	// The agent needs its own provider keys (ANTHROPIC_API_KEY …), so it
	// gets chatls's whole environment; keyenv's filter is for tools.
	cmd.Env = os.Environ()
	for k, v := range a.spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = a.stderr
	cmd.WaitDelay = closeGrace // a grandchild holding stderr open must not hang Wait
	procsup.Prepare(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start the agent %q: %w", a.name, err)
	}
	a.cmd, a.stdin = cmd, stdin
	a.wire = newWire(stdout.Read, func(reason string) { a.fail(reason) })
	a.conn = sdk.NewConnection(a.handle, stdin, a.wire)
	a.conn.SetLogger(slog.New(slog.DiscardHandler)) // wire and faults say what matters
	go a.reap()
	go func() {
		// The connection ends when stdout does: the agent exited (reap
		// names the status) or broke the protocol (wire named it).
		<-a.conn.Done()
		select {
		case <-a.exited:
		case <-time.After(closeGrace):
		}
		a.fail(a.stderr.withStderr("the agent closed its stdout"))
	}()
	return nil
}

// reap waits for the agent, then kills whatever it left in its group.
func (a *Agent) reap() {
	var err error
	if procsup.WaitLeader(a.cmd) {
		procsup.Kill(a.cmd)
		err = a.cmd.Wait()
	} else {
		err = a.cmd.Wait()
		procsup.Kill(a.cmd)
	}
	a.status = exitStatus(a.cmd, err)
	a.fail(a.stderr.withStderr("the agent " + a.status)) // before exited: this reason wins
	close(a.exited)
}

func exitStatus(cmd *exec.Cmd, err error) string {
	st := cmd.ProcessState
	if st == nil {
		return fmt.Sprintf("ended (%v)", err)
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("exited (status %d)", st.ExitCode())
}

// fail records the agent's first fault and stops it. Later faults (the
// exit a kill causes, say) keep the first reason.
func (a *Agent) fail(reason string) {
	a.mu.Lock()
	if a.fault != nil {
		a.mu.Unlock()
		return
	}
	if a.closing {
		reason = "the agent was closed"
	}
	a.fault = &Fault{Reason: reason}
	close(a.faulted)
	a.cond.Broadcast()
	a.mu.Unlock()
	a.log.Info("acp agent stopped", zap.String("agent", a.name), zap.String("reason", reason))
	procsup.Kill(a.cmd)
}

// Err is the agent's fault, nil while it is usable.
func (a *Agent) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fault == nil {
		return nil
	}
	return a.fault
}

// Done is closed once the agent has a fault (Err says which).
func (a *Agent) Done() <-chan struct{} { return a.faulted }

// Stderr is the last lines the agent wrote on stderr.
func (a *Agent) Stderr(n int) []string { return a.stderr.lastLines(n) }

// Pid is the agent's process (its supervisor where chatls supervises).
func (a *Agent) Pid() int { return a.cmd.Process.Pid }

// Close ends the agent: stdin is closed (agents exit on EOF), then the
// process group is killed, and Close returns once it is gone.
func (a *Agent) Close() error {
	a.mu.Lock()
	a.closing = true
	a.mu.Unlock()
	_ = a.stdin.Close()
	select {
	case <-a.exited:
	case <-time.After(closeGrace):
	}
	a.fail("the agent was closed")
	<-a.exited
	return nil
}

// call sends a request outside a prompt turn, bounded by Spec.Timeout and
// ended by a fault.
func call[T any](ctx context.Context, a *Agent, method string, params any) (T, error) {
	var zero T
	if err := a.Err(); err != nil {
		return zero, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.spec.Timeout)
	defer cancel()
	type answer struct {
		v   T
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		v, err := sdk.SendRequest[T](a.conn, ctx, method, params)
		ch <- answer{v, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			if f := a.faultAfter(r.err); f != nil {
				return zero, f
			}
			if ctx.Err() == context.DeadlineExceeded {
				return zero, a.silent(method, a.spec.Timeout)
			}
			return zero, fmt.Errorf("the agent refused %s: %w", method, r.err)
		}
		return r.v, nil
	case <-a.faulted:
		return zero, a.Err()
	}
}

// faultAfter is the agent's fault when err came from the connection ending
// (the SDK says "peer disconnected"): the fault follows within moments.
func (a *Agent) faultAfter(err error) error {
	var re *sdk.RequestError
	if errors.As(err, &re) && re.Code != -32603 {
		return nil // the agent answered with an error
	}
	select {
	case <-a.faulted:
		return a.Err()
	case <-a.conn.Done():
		select {
		case <-a.faulted:
		case <-time.After(closeGrace):
		}
		return a.Err()
	default:
		return nil
	}
}

// silent is the fault of an agent that did not answer: it is stopped, so
// the next send starts a fresh one.
func (a *Agent) silent(what string, d time.Duration) error {
	reason := "the agent did not answer for " + seconds(d)
	if what != "" {
		reason = "the agent did not answer " + what + " for " + seconds(d)
	}
	if l := a.stderr.lastLines(3); len(l) > 0 {
		reason += "; its stderr ended with: " + clip(strings.Join(l, " | "), 400)
	}
	a.fail(reason)
	return a.Err()
}

func seconds(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	}
	return d.String()
}

// initialize negotiates the protocol version and capabilities.
func (a *Agent) initialize(ctx context.Context) error {
	resp, err := call[sdk.InitializeResponse](ctx, a, sdk.AgentMethodInitialize, sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo:      &sdk.Implementation{Name: "chatls", Version: "0"},
		ClientCapabilities: sdk.ClientCapabilities{
			Fs:       sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			Terminal: true,
		},
	})
	if err != nil {
		var f *Fault
		if errors.As(err, &f) {
			return &Fault{Reason: fmt.Sprintf("cannot start the agent %q: %s", a.name, f.Reason)}
		}
		return fmt.Errorf("cannot start the agent %q: %w", a.name, err)
	}
	if resp.ProtocolVersion != sdk.ProtocolVersionNumber {
		return fmt.Errorf("the agent %q speaks ACP version %d, chatls speaks version %d: use a release of the agent for ACP %d",
			a.name, resp.ProtocolVersion, sdk.ProtocolVersionNumber, sdk.ProtocolVersionNumber)
	}
	a.Caps, a.Info = resp.AgentCapabilities, resp.AgentInfo
	return nil
}
