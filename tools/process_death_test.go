package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// awaitProcesses polls /proc until cond holds for the processes whose argv[0]
// is marker, or fails after the deadline (a bounded poll, not a fixed sleep).
func awaitProcesses(t *testing.T, marker string, what string, cond func(n int) bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		found := processesWithArg(marker)
		if cond(len(found)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: processes %s still/not there: %v", what, marker, found)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestToolProcessesDieWithTheServer starts a mini server (this test binary,
// see main_test.go) running bash with a background job, kills the server the
// ways it can die, and checks that no process of the call survives it.
func TestToolProcessesDieWithTheServer(t *testing.T) {
	cases := []struct {
		name string
		sig  syscall.Signal
		mode string
	}{
		{"SIGKILL", syscall.SIGKILL, ""},
		{"SIGTERM unhandled", syscall.SIGTERM, ""},
		{"SIGTERM with KillAll", syscall.SIGTERM, "killall"},
		{"SIGKILL sandboxed", syscall.SIGKILL, "sandbox"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mode == "sandbox" {
				requireSandbox(t)
			}
			marker := fmt.Sprintf("chatls-death-%d-%d", os.Getpid(), i)
			server := exec.Command(os.Args[0], "-test.run=^$")
			server.Env = append(os.Environ(), miniServerEnv+"="+marker, miniServerEnv+"_MODE="+tc.mode)
			var stderr strings.Builder
			server.Stderr = &stderr
			if err := server.Start(); err != nil {
				t.Fatal(err)
			}
			// Both sleeps run: the background job and the main one.
			awaitProcesses(t, marker, "start", func(n int) bool { return n == 2 })
			server.Process.Signal(tc.sig)
			server.Wait()
			awaitProcesses(t, marker, "after the server died", func(n int) bool { return n == 0 })
			if strings.Contains(stderr.String(), "the call ended") {
				t.Errorf("the call ended before the server was killed: %s", stderr.String())
			}
		})
	}
}

// TestKillAllEndsRunningCalls: KillAll kills the groups of calls in flight,
// background jobs included, and their Run returns at once.
func TestKillAllEndsRunningCalls(t *testing.T) {
	env := testEnv(t)
	marker := fmt.Sprintf("chatls-killall-%d", os.Getpid())
	r := NewRunner(NewRegistry(Builtins(BuiltinOptions{})))
	done := make(chan Result)
	go func() {
		done <- r.Run(context.Background(), Call{ID: "k", Name: "bash", Input: map[string]any{
			"command": fmt.Sprintf("(exec -a %[1]s sleep 100) & exec -a %[1]s sleep 100", marker),
		}}, env)
	}()
	awaitProcesses(t, marker, "start", func(n int) bool { return n == 2 })
	if n := KillAll(); n != 1 {
		t.Errorf("KillAll signalled %d groups, want 1", n)
	}
	res := <-done
	if res.ExitCode == nil || *res.ExitCode != 137 || !res.IsError {
		t.Errorf("result %+v", res)
	}
	awaitProcesses(t, marker, "after KillAll", func(n int) bool { return n == 0 })
	if n := KillAll(); n != 0 {
		t.Errorf("KillAll after the call signalled %d groups", n)
	}
}

// TestCallEndsProcessesThatLeftTheGroup: when the command ends, processes
// that left its process group — a new session (setsid), a job-control job
// (set -m), a double fork — end too, and none is left as a zombie.
func TestCallEndsProcessesThatLeftTheGroup(t *testing.T) {
	if !supervisionAvailable {
		t.Skip("no /proc/self/exe: unsupervised")
	}
	env := testEnv(t)
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
	res := run(t, env, "bash", map[string]any{"command": cmd})
	wantText(t, res, "started 3")
	// Run returned only after the supervisor reaped everything: nothing left, at once.
	if left := processesWithArg(marker); len(left) > 0 {
		t.Errorf("processes left after the call: %v", left)
	}
}
