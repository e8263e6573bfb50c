package acp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testLimit bounds every wait in these tests.
const testLimit = 30 * time.Second

// agentScript is the scripted agent on @agentclientprotocol/sdk; CI installs
// its package with `npm ci --prefix acp/testdata/agent`.
func agentScript(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		skipUnlessRequired(t, "node is not installed: the ACP agent tests run a scripted agent on Node")
	}
	dir, _ := filepath.Abs("testdata/agent")
	if _, err := os.Stat(filepath.Join(dir, "node_modules/@agentclientprotocol/sdk/package.json")); err != nil {
		skipUnlessRequired(t, "@agentclientprotocol/sdk is not installed: run `npm ci --prefix acp/testdata/agent`")
	}
	return filepath.Join(dir, "agent.mjs")
}

// startAgent starts the scripted agent with env and closes it at the end.
func startAgent(t *testing.T, c Client, env map[string]string) *Agent {
	t.Helper()
	spec := Spec{Command: []string{"node", agentScript(t)}, Env: env, Timeout: testLimit, Silence: testLimit, CancelGrace: testLimit}
	return startSpec(t, spec, c)
}

func startSpec(t *testing.T, spec Spec, c Client) *Agent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	a, err := Start(ctx, spec, c)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// newSession opens a new session in a fresh directory.
func newSession(t *testing.T, a *Agent) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	s, err := a.Session(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	return s.ID
}

// prompt sends text and collects the updates.
func prompt(t *testing.T, a *Agent, session, text string) ([]Update, StopReason, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	var got []Update
	stop, err := a.Prompt(ctx, session, []Block{{Text: text}}, func(u Update) { got = append(got, u) })
	return got, stop, err
}

// message is the text of the message chunks.
func message(us []Update, kind UpdateKind) string {
	var b strings.Builder
	for _, u := range us {
		if u.Kind == kind {
			b.WriteString(u.Text)
		}
	}
	return b.String()
}

// testClient is a real client: files on disk, commands run by bash. The
// permission answer is a function of the request.
type testClient struct {
	decide func(ctx context.Context, req PermissionRequest) (string, bool, error)

	mu          sync.Mutex
	permissions []PermissionRequest
	reads       []string
	writes      map[string]string
	terminals   map[string]*testTerminal
	lines       []string // shell lines run
}

type testTerminal struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan struct{}
	code int
}

func newTestClient(decide func(ctx context.Context, req PermissionRequest) (string, bool, error)) *testClient {
	return &testClient{decide: decide, writes: map[string]string{}, terminals: map[string]*testTerminal{}}
}

// allowKind answers with the first option of kind.
func allowKind(kind string) func(context.Context, PermissionRequest) (string, bool, error) {
	return func(_ context.Context, req PermissionRequest) (string, bool, error) {
		o, ok := OptionOfKind(req.Options, kind)
		if !ok {
			return "", false, fmt.Errorf("no %s option", kind)
		}
		return o.ID, false, nil
	}
}

func (c *testClient) RequestPermission(ctx context.Context, req PermissionRequest) (string, bool, error) {
	c.mu.Lock()
	c.permissions = append(c.permissions, req)
	c.mu.Unlock()
	return c.decide(ctx, req)
}

func (c *testClient) ReadTextFile(_ context.Context, path string, line, limit int) (string, error) {
	c.mu.Lock()
	c.reads = append(c.reads, path)
	c.mu.Unlock()
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(string(b), "\n")
	if line > 1 {
		lines = lines[min(line-1, len(lines)):]
	}
	if limit > 0 && limit < len(lines) {
		lines = lines[:limit]
	}
	return strings.Join(lines, ""), nil
}

func (c *testClient) WriteTextFile(_ context.Context, path, content string) error {
	c.mu.Lock()
	c.writes[path] = content
	c.mu.Unlock()
	return os.WriteFile(path, []byte(content), 0o644)
}

func (c *testClient) CreateTerminal(_ context.Context, req TerminalRequest) (string, error) {
	line := ShellLine(req.Command, req.Args)
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = req.Cwd
	cmd.Env = append(os.Environ(), req.Env...)
	term := &testTerminal{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &term.out, &term.out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() {
		_ = cmd.Wait()
		term.code = cmd.ProcessState.ExitCode()
		close(term.done)
	}()
	c.mu.Lock()
	defer c.mu.Unlock()
	id := fmt.Sprintf("term-%d", len(c.terminals)+1)
	c.terminals[id] = term
	c.lines = append(c.lines, line)
	return id, nil
}

func (c *testClient) terminal(id string) (*testTerminal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	term := c.terminals[id]
	if term == nil {
		return nil, errors.New("no terminal " + id)
	}
	return term, nil
}

func (c *testClient) TerminalOutput(_ context.Context, id string) (TerminalOutput, error) {
	term, err := c.terminal(id)
	if err != nil {
		return TerminalOutput{}, err
	}
	select {
	case <-term.done:
		code := term.code
		return TerminalOutput{Output: term.out.String(), Exit: &ExitStatus{Code: &code}}, nil
	default:
		return TerminalOutput{}, nil // the buffer is the command's until it ends
	}
}

func (c *testClient) WaitForTerminalExit(ctx context.Context, id string) (ExitStatus, error) {
	term, err := c.terminal(id)
	if err != nil {
		return ExitStatus{}, err
	}
	select {
	case <-term.done:
		code := term.code
		return ExitStatus{Code: &code}, nil
	case <-ctx.Done():
		return ExitStatus{}, ctx.Err()
	}
}

func (c *testClient) KillTerminal(_ context.Context, id string) error {
	term, err := c.terminal(id)
	if err != nil {
		return err
	}
	return term.cmd.Process.Kill()
}

func (c *testClient) ReleaseTerminal(_ context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.terminals, id)
	return nil
}

// skipUnlessRequired skips a test whose agent is not installed, unless
// CHATLS_REQUIRE_ACP is set (CI installs them: there it must run).
func skipUnlessRequired(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CHATLS_REQUIRE_ACP") != "" {
		t.Fatal(why + " (CHATLS_REQUIRE_ACP is set: run acp/install-test-agents.sh)")
	}
	t.Skip(why)
}
