package plugin

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/procsup/proctest"
	"go.uber.org/zap/zaptest"
)

// script writes an executable bash plugin; $PIDFILE gets pids appended.
func script(t *testing.T, body string) (path, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "plugin.sh")
	if err := os.WriteFile(path, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, filepath.Join(dir, "pids")
}

const initAnswer = `echo '{"type":"init","tools":[{"name":"noop"},{"name":"quit"}]}'` + "\n"

func firstPid(t *testing.T, pidFile string) int {
	t.Helper()
	lines := strings.Split(proctest.AwaitFile(t, pidFile, 10*time.Second), "\n")
	return proctest.Pid(t, lines[0])
}

func scriptSource(t *testing.T, path, pidFile string) *Source {
	t.Helper()
	s := NewSource(config.Plugin{Name: "sh", Path: path, Env: map[string]string{"PIDFILE": pidFile}}, zaptest.NewLogger(t))
	s.backoffMin = 20 * time.Millisecond
	t.Cleanup(func() { s.Close() })
	return s
}

// A plugin that exits cleanly on EOF leaves its background jobs behind;
// chatls kills them with the plugin's group.
func TestCloseKillsWhatThePluginSpawned(t *testing.T) {
	proctest.Skip(t)
	path, pidFile := script(t, `sleep 300 >/dev/null 2>&1 &
echo $! >> "$PIDFILE"
read -r line
`+initAnswer+`while read -r line; do :; done
`)
	s := scriptSource(t, path, pidFile)
	load(t, s)
	child := firstPid(t, pidFile)
	leader := s.proc.cmd.Process.Pid
	if !proctest.Alive(child) {
		t.Fatalf("background job %d is not running before Close", child)
	}
	start := time.Now()
	s.Close()
	if d := time.Since(start); d >= stopGrace {
		t.Errorf("Close took %s: the plugin exits on EOF, no grace period needed", d)
	}
	proctest.AwaitGone(t, 5*time.Second, leader, child)
}

// A plugin that exits on its own (here: mid-call) takes its group along,
// even a child that still holds its stdout; the call fails at once instead
// of waiting for that child.
func TestPluginExitKillsItsGroup(t *testing.T) {
	proctest.Skip(t)
	path, pidFile := script(t, `sleep 300 &
echo $! >> "$PIDFILE"
read -r line
`+initAnswer+`read -r line
echo "quitting" >&2
exit 0
`)
	s := scriptSource(t, path, pidFile)
	quit := load(t, s)["quit"]
	child := firstPid(t, pidFile)
	start := time.Now()
	wantResult(t, run(t, quit, nil), true, "plugin sh died while running quit", `"quitting"`)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %s", d)
	}
	proctest.AwaitGone(t, 5*time.Second, child)
}

// parentModeEnv makes the test binary a stand-in for chatls: it loads the
// plugin at the path given, says "ready" and waits to be killed.
const parentModeEnv = "CHATLS_PLUGIN_TEST_PARENT"

func parentMain(path string) int {
	s := NewSource(config.Plugin{Name: "orphan", Path: path}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Load(ctx); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("ready")
	select {}
}

// chatls killed with SIGKILL cannot stop anything; its supervisor (or,
// unsupervised, the kernel's parent-death signal) still takes a plugin that
// ignores EOF on stdin.
func TestPluginDiesWithChatls(t *testing.T) {
	proctest.Skip(t)
	path, pidFile := script(t, `echo $$ >> "$PIDFILE"
read -r line
`+initAnswer+`while true; do read -r line || sleep 1; done
`)
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentModeEnv+"="+path, "PIDFILE="+pidFile)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { parent.Process.Kill(); parent.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("stand-in for chatls said %q", line)
	}
	plugin := firstPid(t, pidFile)
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	proctest.AwaitGone(t, 5*time.Second, plugin)
	if proctest.Alive(plugin) {
		syscall.Kill(-plugin, syscall.SIGKILL)
	}
}

// TestPluginJobsDieWithChatls: chatls killed with SIGKILL, a plugin's
// background jobs die too, one that left the plugin's session included: the
// plugin runs under a supervisor (procsup), not only with a parent-death
// signal, which reaches the plugin alone.
func TestPluginJobsDieWithChatls(t *testing.T) {
	proctest.Skip(t)
	marker := fmt.Sprintf("chatls-plugin-job-%d", os.Getpid())
	path, _ := script(t, fmt.Sprintf(`(exec -a %[1]s sleep 300) &
setsid bash -c 'exec -a %[1]s sleep 300' &
read -r line
`, marker)+initAnswer+`while true; do read -r line || sleep 1; done
`)
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentModeEnv+"="+path)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		parent.Process.Kill()
		parent.Wait()
		for _, p := range proctest.WithArg0(marker) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("stand-in for chatls said %q", line)
	}
	proctest.AwaitArg0(t, 10*time.Second, marker, "start", func(n int) bool { return n == 2 })
	parent.Process.Signal(syscall.SIGKILL)
	parent.Wait()
	proctest.AwaitArg0(t, 10*time.Second, marker, "after chatls was killed", func(n int) bool { return n == 0 })
}

// The registry's load timeout (tools.defaultTimeout) may be shorter than the
// init timeout; the message still says what went wrong, naming the timeout
// the registry passes along (its deadline comes a little earlier).
func TestInitTimeoutFollowsTheLoadDeadline(t *testing.T) {
	s := newTestSource(t, "no-init", nil)
	s.initTimeout = 10 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Load(WithLoadTimeout(ctx, 2*time.Second))
	want := `plugin tp did not answer init within 2s; check that it reads {"type":"init"} lines on stdin and answers on stdout; chatls retries in the background`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	if d := time.Since(start); d > 8*time.Second { // well before the 10 s init timeout
		t.Errorf("Load took %s for a 300 ms deadline", d)
	}
	// Without the timeout passed along, the deadline itself is named.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel2()
	if _, err := newTestSource(t, "no-init", nil).Load(ctx2); err == nil || !strings.HasPrefix(err.Error(), "plugin tp did not answer init within 1") {
		t.Errorf("err = %v", err)
	}
}

// Close during the init handshake ends Load at once and stops the process.
func TestCloseDuringInit(t *testing.T) {
	proctest.Skip(t)
	starts := filepath.Join(t.TempDir(), "starts")
	s := newTestSource(t, "no-init", map[string]string{"TESTPLUGIN_STARTS": starts})
	s.initTimeout = 30 * time.Second
	errc := make(chan error, 1)
	go func() {
		_, err := s.Load(context.Background())
		errc <- err
	}()
	pid := firstPid(t, starts)
	s.Close()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "plugin tp is stopped") {
			t.Errorf("Load = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load still waits for init after Close")
	}
	proctest.AwaitGone(t, 5*time.Second, pid)
}
