package target_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testsshd"
	"github.com/chatls/chatls/tools/target"
)

func sshTarget(t *testing.T, srv *testsshd.Server) *target.SSH {
	t.Helper()
	m, err := target.NewSSH("build", target.SSHConfig{Host: srv.Host, ConfigFile: srv.ConfigFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// signalWriter collects output and tells when it first contains want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func newSignalWriter(want string) *signalWriter {
	return &signalWriter{want: want, seen: make(chan struct{})}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestSSHRunStreamsOutputAndExitCode(t *testing.T) {
	srv := testsshd.Start(t)
	m := sshTarget(t, srv)
	dir := t.TempDir()
	var out bytes.Buffer
	// The command travels on stdin: quotes, a CR and a here-document reach bash as written.
	p, err := target.Run(context.Background(), m, "printf 'it'\"'\"'s\\r\\n'; pwd; echo oops >&2; cat <<'X'\n$HOME\nX\nexit 7", dir, &out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Code != 7 || p.Killed {
		t.Fatalf("process %+v, want exit 7", p)
	}
	want := "it's\r\n" + dir + "\noops\n$HOME\n"
	if out.String() != want {
		t.Fatalf("output %q, want %q", out.String(), want)
	}
	if _, err := target.Run(context.Background(), m, "true", filepath.Join(dir, "nope"), &out); !errors.Is(err, target.ErrNoDir) {
		t.Fatalf("missing directory: %v", err)
	}
}

func TestSSHCancelKillsTheRemoteTree(t *testing.T) {
	srv := testsshd.Start(t)
	m := sshTarget(t, srv)
	marker := "317.4242" // an argument nothing else on this machine runs sleep with
	out := newSignalWriter("started")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // a failure below still stops the remote tree
	done := make(chan target.Process, 1)
	go func() {
		// "started" once both sleeps run (a forked child is not sleep
		// until it has exec'd).
		both := "until [ \"$(pgrep -c -f -x 'sleep " + marker + "')\" -ge 2 ]; do sleep 0.01; done; "
		p, err := target.Run(ctx, m, "sleep "+marker+" & sleep "+marker+" & "+both+"echo started; wait", "", out)
		if err != nil {
			t.Error(err)
		}
		done <- p
	}()
	select {
	case <-out.seen:
	case <-time.After(20 * time.Second):
		t.Fatalf("the command did not start: %q", out.String())
	}
	if n := countProcesses(t, "sleep "+marker); n != 2 {
		t.Fatalf("%d sleeps running before the cancel, want 2", n)
	}
	cancel()
	p := <-done
	if !p.Killed || p.Code != 137 {
		t.Fatalf("process %+v, want killed with 137", p)
	}
	if n := countProcesses(t, "sleep "+marker); n != 0 {
		t.Fatalf("%d sleeps left on the remote side after the cancel", n)
	}
}

// countProcesses counts processes whose command line is exactly cmdline
// (the "remote" side is this machine).
func countProcesses(t *testing.T, cmdline string) int {
	t.Helper()
	out, _ := exec.Command("pgrep", "-f", "-x", cmdline).Output()
	return len(strings.Fields(string(out)))
}

func TestSSHMasterIsReusedAndReopened(t *testing.T) {
	srv := testsshd.Start(t)
	m := sshTarget(t, srv)
	pid := func() string {
		var out bytes.Buffer
		if _, err := target.Run(context.Background(), m, "echo $PPID", "", &out); err != nil {
			t.Fatal(err)
		}
		return masterPID(t, srv, m)
	}
	first := pid()
	if second := pid(); second != first {
		t.Fatalf("master changed from %s to %s between two calls", first, second)
	}
	killPID(t, first)
	if third := pid(); third == first || third == "" {
		t.Fatalf("the dead master %s was not replaced (now %q)", first, third)
	}
}

// masterPID is the pid of m's master connection ("" when there is none).
func masterPID(t *testing.T, srv *testsshd.Server, m *target.SSH) string {
	t.Helper()
	out, _ := exec.Command("ssh", "-F", srv.ConfigFile, "-S", m.ControlSocket(), "-O", "check", srv.Host).CombinedOutput()
	if match := regexp.MustCompile(`pid=(\d+)`).FindSubmatch(out); match != nil {
		return string(match[1])
	}
	return ""
}

// killPID kills pid and returns once it is gone: kill(1) returns before
// the process has died, and a dying master still answers -O check.
func killPID(t *testing.T, pid string) {
	t.Helper()
	if err := exec.Command("kill", "-9", pid).Run(); err != nil {
		t.Fatalf("kill %s: %v", pid, err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		// Gone, or a zombie nobody has reaped yet (dead all the same).
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if _, rest, _ := strings.Cut(string(stat), ") "); err != nil || strings.HasPrefix(rest, "Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s did not die", pid)
		}
	}
}

func TestSSHMasterKilledMidCallIsAnErrorNotARerun(t *testing.T) {
	srv := testsshd.Start(t)
	m := sshTarget(t, srv)
	dir := t.TempDir()
	counter := filepath.Join(dir, "runs")
	out := newSignalWriter("started")
	done := make(chan error, 1)
	go func() {
		_, err := target.Run(context.Background(), m, "echo x >> "+counter+"; echo started; sleep 30", "", out)
		done <- err
	}()
	<-out.seen
	killPID(t, masterPID(t, srv, m))
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not end after its connection died")
	}
	var u *target.Unreachable
	if !errors.As(err, &u) || !u.Started || !strings.Contains(err.Error(), "dropped during the call") {
		t.Fatalf("error %v, want a dropped connection", err)
	}
	if data, _ := os.ReadFile(counter); string(data) != "x\n" {
		t.Fatalf("the command ran %d times", strings.Count(string(data), "x"))
	}
}

func TestSSHChangedHostKeyIsRefused(t *testing.T) {
	srv := testsshd.Start(t)
	srv.ReplaceHostKey(t)
	m := sshTarget(t, srv)
	_, err := target.Run(context.Background(), m, "echo should-not-run", "", &bytes.Buffer{})
	if !target.IsUnreachable(err) || !strings.Contains(err.Error(), "Host key verification failed") {
		t.Fatalf("error %v, want ssh's host key refusal", err)
	}
}

func TestSSHUnreachableHostAndWrongKey(t *testing.T) {
	srv := testsshd.Start(t)
	m, err := target.NewSSH("gone", target.SSHConfig{Host: srv.Host, ConfigFile: srv.ConfigFile, Port: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := target.Run(context.Background(), m, "true", "", &bytes.Buffer{}); !target.IsUnreachable(err) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("closed port: %v", err)
	}
	other := filepath.Join(t.TempDir(), "other_key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	cfg, err := os.ReadFile(srv.ConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	wrongConfig := filepath.Join(t.TempDir(), "ssh_config")
	os.WriteFile(wrongConfig, []byte(strings.ReplaceAll(string(cfg), filepath.Join(srv.Dir, "client_key"), other)), 0o600)
	wrong, err := target.NewSSH("wrongkey", target.SSHConfig{Host: srv.Host, ConfigFile: wrongConfig})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if _, err := target.Run(context.Background(), wrong, "true", "", &bytes.Buffer{}); !target.IsUnreachable(err) || !strings.Contains(err.Error(), "Permission denied") {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := target.NewSSH("bad", target.SSHConfig{Host: "x", Options: []string{"StrictHostKeyChecking=no"}}); err == nil {
		t.Fatal("StrictHostKeyChecking=no was accepted")
	}
}
