package procsup

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/procsup/proctest"
)

// TestToolProcessesDieWithTheServer starts a mini server (this test binary,
// see main_test.go) running bash with a background job, kills the server the
// ways it can die, and checks that no process of the call survives it (in
// the sandbox: tools/builtin's TestSandboxedBashDiesWithTheServer).
func TestToolProcessesDieWithTheServer(t *testing.T) {
	cases := []struct {
		name string
		sig  syscall.Signal
		mode string
	}{
		{"SIGKILL", syscall.SIGKILL, ""},
		{"SIGTERM unhandled", syscall.SIGTERM, ""},
		{"SIGTERM with KillAll", syscall.SIGTERM, "killall"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			marker := fmt.Sprintf("chatls-death-%d-%d", os.Getpid(), i)
			server := exec.Command(os.Args[0], "-test.run=^$")
			server.Env = append(os.Environ(), miniServerEnv+"="+marker, miniServerEnv+"_MODE="+tc.mode)
			var stderr strings.Builder
			server.Stderr = &stderr
			if err := server.Start(); err != nil {
				t.Fatal(err)
			}
			// Both sleeps run: the background job and the main one.
			proctest.AwaitListed(t, 15*time.Second, marker, "start", func(n int) bool { return n == 2 })
			server.Process.Signal(tc.sig)
			server.Wait()
			proctest.AwaitListed(t, 15*time.Second, marker, "after the server died", func(n int) bool { return n == 0 })
			if strings.Contains(stderr.String(), "the call ended") {
				t.Errorf("the call ended before the server was killed: %s", stderr.String())
			}
		})
	}
}

// TestKillAllEndsRunningCalls: KillAll kills the groups of calls in flight,
// background jobs included, and their Run returns at once.
func TestKillAllEndsRunningCalls(t *testing.T) {
	dir := t.TempDir()
	marker := fmt.Sprintf("chatls-killall-%d", os.Getpid())
	done := make(chan Outcome)
	go func() {
		_, res := bash(dir, fmt.Sprintf("(exec -a %[1]s sleep 100) & exec -a %[1]s sleep 100", marker), time.Minute)
		done <- res
	}()
	proctest.AwaitListed(t, 15*time.Second, marker, "start", func(n int) bool { return n == 2 })
	if n := KillAll(); n != 1 {
		t.Errorf("KillAll signalled %d groups, want 1", n)
	}
	if res := <-done; res.ExitCode != 137 {
		t.Errorf("outcome %+v", res)
	}
	proctest.AwaitListed(t, 15*time.Second, marker, "after KillAll", func(n int) bool { return n == 0 })
	if n := KillAll(); n != 0 {
		t.Errorf("KillAll after the call signalled %d groups", n)
	}
}

// TestCallEndsProcessesThatLeftTheGroup: when the command ends, processes
// that left its process group — a new session (setsid), a job-control job
// (set -m), a double fork — end too, and none is left as a zombie.
func TestCallEndsProcessesThatLeftTheGroup(t *testing.T) {
	if !Available {
		t.Skip("no /proc/self/exe: unsupervised")
	}
	marker := fmt.Sprintf("chatls-escape-%d", os.Getpid())
	cmd := fmt.Sprintf(`setsid bash -c 'exec -a %[1]s sleep 100' &
set -m; (exec -a %[1]s sleep 100) &
( (exec -a %[1]s sleep 100) & )
# Await all three (bounded poll), so the test sees them escape, not start.
for i in $(seq 1000); do
	n=0
	for f in /proc/[0-9]*/cmdline; do
		# stderr first: a process that ends mid-scan makes the < fail.
		read -r -d '' a 2>/dev/null < "$f"; [ "$a" = %[1]s ] && n=$((n+1))
	done
	[ $n -ge 3 ] && break
	sleep 0.01
done
# At least the three (a scan of /proc can meet one twice while it forks).
[ $n -gt 3 ] && n=3
echo "started $n"`, marker)
	if text, _ := bash(t.TempDir(), cmd, time.Minute); text != "started 3" {
		t.Errorf("output %q", text)
	}
	// Run returned only after the supervisor reaped everything: nothing left, at once.
	if left := proctest.Listed(marker); len(left) > 0 {
		t.Errorf("processes left after the call: %v", left)
	}
}
