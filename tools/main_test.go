package tools

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// miniServerEnv makes the test binary act as a small chatls: it runs one bash
// call with background jobs and waits to be killed (see process_death_test.go).
const miniServerEnv = "CHATLS_TEST_MINI_SERVER"

func TestMain(m *testing.M) {
	if marker := os.Getenv(miniServerEnv); marker != "" {
		os.Exit(miniServer(marker, os.Getenv(miniServerEnv+"_MODE")))
	}
	os.Exit(m.Run())
}

// miniServer starts `(exec -a MARKER sleep 100) & exec -a MARKER sleep 100`
// through a Runner. Mode "killall" handles SIGTERM as the server should:
// KillAll, then exit. Mode "sandbox" runs the call under bubblewrap. Mode
// "spare" runs a quick call instead, prints "spare PID" (the idle supervisor
// it leaves) and waits.
func miniServer(marker, mode string) int {
	dir, err := os.MkdirTemp("", "chatls-mini-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	env := Env{Dir: dir, TempDir: dir, Writable: []string{dir}, BashTimeout: 60}
	if mode == "sandbox" {
		env.Sandbox = SandboxConfig{Enabled: true}
	}
	var terminating atomic.Bool
	if mode == "killall" {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		go func() {
			<-sigs
			terminating.Store(true)
			KillAll()
			os.RemoveAll(dir)
			os.Exit(143)
		}()
	}
	r := NewRunner(NewRegistry(Builtins(BuiltinOptions{})))
	if mode == "spare" {
		res := r.Run(context.Background(), Call{ID: "quick", Name: "bash", Input: map[string]any{"command": "echo $PPID"}}, env)
		fmt.Println("spare", res.Text)
		select {}
	}
	cmd := fmt.Sprintf("(exec -a %[1]s sleep 100) & exec -a %[1]s sleep 100", marker)
	res := r.Run(context.Background(), Call{ID: "mini", Name: "bash", Input: map[string]any{"command": cmd}}, env)
	if terminating.Load() {
		time.Sleep(time.Minute) // KillAll ended it; the handler exits
	}
	// Only reached if the call ends before the server is killed.
	fmt.Fprintln(os.Stderr, "mini server: the call ended:", res.Text)
	return 3
}
