package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/procsup/proctest"
)

// faultLimit is how long a fault may take to surface: well under testLimit,
// so a test proves the bound rather than its own timeout.
const faultLimit = 10 * time.Second

func promptFault(t *testing.T, a *Agent, text string) error {
	t.Helper()
	start := time.Now()
	_, _, err := prompt(t, a, newSession(t, a), text)
	if took := time.Since(start); took > faultLimit {
		t.Errorf("the fault took %s to surface", took)
	}
	if err == nil {
		t.Fatal("Prompt succeeded; want a fault")
	}
	if !IsFault(err) || !IsFault(a.Err()) {
		t.Errorf("err %v is not the agent's fault (Err: %v)", err, a.Err())
	}
	return err
}

func TestAgentExitMidTurnNamesStatusAndStderr(t *testing.T) {
	a := startAgent(t, newTestClient(allowKind(AllowOnce)), nil)
	err := promptFault(t, a, "exit")
	if want := "the agent exited (status 1): Error: the model is overloaded"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	// Every later call says the same.
	if _, err2 := a.Session(context.Background(), t.TempDir(), ""); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("after the fault Session says %v", err2)
	}
}

func TestGarbageOnStdoutBreaksTheProtocol(t *testing.T) {
	a := startAgent(t, newTestClient(allowKind(AllowOnce)), nil)
	err := promptFault(t, a, "garbage")
	want := `the agent broke the protocol: it wrote "Loading model weights..." on stdout, which is not a JSON-RPC message (logs belong on stderr)`
	if err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	select {
	case <-a.exited:
	case <-time.After(faultLimit):
		t.Error("an agent that broke the protocol was not stopped")
	}
}

func TestSilentAgentTimesOut(t *testing.T) {
	spec := Spec{Command: []string{"node", agentScript(t)}, Timeout: testLimit, Silence: 500 * time.Millisecond}
	a := startSpec(t, spec, newTestClient(allowKind(AllowOnce)))
	err := promptFault(t, a, "silent")
	if !strings.HasPrefix(err.Error(), "the agent did not answer for 500ms") {
		t.Errorf("err = %q", err)
	}
}

func TestBusyClientIsNotSilence(t *testing.T) {
	// The agent waits on a permission longer than Silence: that is the
	// user's time, not the agent's silence.
	spec := Spec{Command: []string{"node", agentScript(t)}, Timeout: testLimit, Silence: 300 * time.Millisecond, CancelGrace: testLimit}
	c := newTestClient(nil)
	c.decide = func(ctx context.Context, req PermissionRequest) (string, bool, error) {
		select {
		case <-time.After(time.Second): // a user taking their time (longer than Silence)
		case <-ctx.Done():
		}
		return "reject", false, nil
	}
	a := startSpec(t, spec, c)
	file := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(file, []byte("x\n"), 0o644)
	got, stop, err := prompt(t, a, newSession(t, a), "read "+file)
	if err != nil || stop != StopEndTurn || message(got, UpdateMessage) != "I will not read it." {
		t.Errorf("Prompt = %q, %v, %q", stop, err, message(got, UpdateMessage))
	}
}

func TestCancelIgnoredIsBounded(t *testing.T) {
	spec := Spec{Command: []string{"node", agentScript(t)}, Timeout: testLimit, Silence: testLimit, CancelGrace: 300 * time.Millisecond}
	a := startSpec(t, spec, newTestClient(allowKind(AllowOnce)))
	session := newSession(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	stop, err := a.Prompt(ctx, session, []Block{{Text: "ignorecancel"}}, func(Update) { cancel() })
	if stop != StopCancelled || err == nil || !strings.HasPrefix(err.Error(), "the agent did not answer session/cancel for 300ms") {
		t.Errorf("Prompt = %q, %v", stop, err)
	}
	if took := time.Since(start); took > faultLimit {
		t.Errorf("took %s", took)
	}
}

func TestInitializeTimeoutNamesCommandAndStderr(t *testing.T) {
	script := agentScript(t)
	spec := Spec{Command: []string{"node", script}, Env: map[string]string{"ACP_TEST_INIT": "silent"}, Timeout: 500 * time.Millisecond}
	_, err := Start(context.Background(), spec, newTestClient(nil))
	want := `cannot start the agent "node ` + script + `": the agent did not answer initialize for 500ms`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestAgentExitingAtStartNamesItsStderr(t *testing.T) {
	spec := Spec{Command: []string{"node", agentScript(t)}, Env: map[string]string{"ACP_TEST_INIT": "exit"}, Timeout: testLimit}
	_, err := Start(context.Background(), spec, newTestClient(nil))
	if err == nil || !strings.HasSuffix(err.Error(), "the agent exited (status 3): fatal: no credentials found; run `agent login`") {
		t.Errorf("err = %v", err)
	}
}

func TestWrongProtocolVersionIsRefused(t *testing.T) {
	spec := Spec{Command: []string{"node", agentScript(t)}, Env: map[string]string{"ACP_TEST_VERSION": "2"}, Timeout: testLimit}
	_, err := Start(context.Background(), spec, newTestClient(nil))
	if err == nil || !strings.Contains(err.Error(), "speaks ACP version 2, chatls speaks version 1") {
		t.Errorf("err = %v", err)
	}
}

func TestMissingCommand(t *testing.T) {
	_, err := Start(context.Background(), Spec{Command: []string{"chatls-no-such-agent"}}, newTestClient(nil))
	if err == nil || !strings.Contains(err.Error(), `cannot start the agent "chatls-no-such-agent"`) {
		t.Errorf("err = %v", err)
	}
	if _, err := Start(context.Background(), Spec{}, newTestClient(nil)); err == nil {
		t.Error("an empty command started")
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	proctest.Skip(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	a := startAgent(t, newTestClient(nil), map[string]string{"ACP_TEST_PIDFILE": pidfile})
	fields := strings.Fields(proctest.AwaitFile(t, pidfile, testLimit))
	agentPid, _ := strconv.Atoi(fields[0])
	childPid, _ := strconv.Atoi(fields[1])
	pgid, err := syscall.Getpgid(agentPid)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	proctest.AwaitGone(t, faultLimit, agentPid, childPid)
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(-%d, 0) = %v, want ESRCH: the agent's group outlived Close", pgid, err)
	}
	if err := a.Err(); err == nil || err.Error() != "the agent was closed" {
		t.Errorf("after Close Err = %v", err)
	}
}
