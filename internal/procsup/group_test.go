package procsup

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/procsup/proctest"
)

// TestTreeDiesWithChatls: chatls killed with SIGKILL can stop nothing itself;
// the supervisor still ends the child and what it started, also a job that
// left the child's group (plugins and stdio MCP servers run this way).
func TestTreeDiesWithChatls(t *testing.T) {
	proctest.Skip(t)
	if !Available {
		t.Skip("no /proc/self/exe: only the parent-death signal")
	}
	marker := fmt.Sprintf("chatls-procgroup-%d", os.Getpid())
	standIn := exec.Command(os.Args[0], "-test.run=^$")
	standIn.Env = append(os.Environ(), standInEnv+"="+marker)
	out, err := standIn.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := standIn.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		standIn.Process.Kill()
		standIn.Wait()
		for _, p := range proctest.WithArg0(marker) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("stand-in for chatls said %q", line)
	}
	proctest.AwaitArg0(t, 10*time.Second, marker, "start", func(n int) bool { return n == 3 })
	standIn.Process.Signal(syscall.SIGKILL)
	standIn.Wait()
	proctest.AwaitArg0(t, 10*time.Second, marker, "after chatls was killed", func(n int) bool { return n == 0 })
}

// TestKillEndsTheTree: Kill ends the child's whole tree at once; WaitLeader
// returns once it is gone, and Kill after that does nothing.
func TestKillEndsTheTree(t *testing.T) {
	proctest.Skip(t)
	marker := fmt.Sprintf("chatls-procgroup-kill-%d", os.Getpid())
	cmd := exec.Command("bash", "-c", fmt.Sprintf(
		`(exec -a %[1]s sleep 300) & setsid bash -c 'exec -a %[1]s sleep 300' & exec -a %[1]s sleep 300`, marker))
	Prepare(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, p := range proctest.WithArg0(marker) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	left := 0
	if !Available {
		left = 1 // unsupervised, the setsid job escapes the group kill
	}
	proctest.AwaitArg0(t, 10*time.Second, marker, "start", func(n int) bool { return n == 3 })
	Kill(cmd)
	WaitLeader(cmd)
	Kill(cmd)
	cmd.Wait()
	proctest.AwaitArg0(t, 10*time.Second, marker, "after Kill", func(n int) bool { return n == left })
}

// TestTermEndsTheTree: SIGTERM to the process chatls started (what the MCP
// SDK sends a stdio server that ignored EOF) ends the whole tree.
func TestTermEndsTheTree(t *testing.T) {
	proctest.Skip(t)
	if !Available {
		t.Skip("unsupervised: SIGTERM reaches the child alone")
	}
	marker := fmt.Sprintf("chatls-procgroup-term-%d", os.Getpid())
	cmd := exec.Command("bash", "-c", fmt.Sprintf(
		`trap '' TERM; (exec -a %[1]s sleep 300) & setsid bash -c 'exec -a %[1]s sleep 300' & exec -a %[1]s sleep 300`, marker))
	Prepare(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		Kill(cmd)
		for _, p := range proctest.WithArg0(marker) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	proctest.AwaitArg0(t, 10*time.Second, marker, "start", func(n int) bool { return n == 3 })
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if cmd.ProcessState.ExitCode() != 128+int(syscall.SIGKILL) {
		t.Errorf("supervisor ended with %v, want the killed command's 137", err)
	}
	proctest.AwaitArg0(t, 10*time.Second, marker, "after SIGTERM", func(n int) bool { return n == 0 })
}
