package procsup

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// standInEnv makes the test binary a stand-in for chatls: it starts, through
// Prepare, a child that leaves background jobs — one in its group, one in a
// session of its own — all named by the marker given, says "ready" and waits
// to be killed.
const standInEnv = "CHATLS_PROCGROUP_TEST_STAND_IN"

// miniServerEnv makes the test binary act as a small chatls: it runs one
// command with background jobs and waits to be killed (death_test.go).
const miniServerEnv = "CHATLS_TEST_MINI_SERVER"

func TestMain(m *testing.M) {
	if marker := os.Getenv(standInEnv); marker != "" {
		cmd := exec.Command("bash", "-c", fmt.Sprintf(
			`(exec -a %[1]s sleep 300) & setsid bash -c 'exec -a %[1]s sleep 300' & exec -a %[1]s sleep 300`, marker))
		Prepare(cmd)
		if err := cmd.Start(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		time.Sleep(time.Hour) // not select{}: with nothing else to run, that is a crash
		os.Exit(1)
	}
	if marker := os.Getenv(miniServerEnv); marker != "" {
		os.Exit(miniServer(marker, os.Getenv(miniServerEnv+"_MODE")))
	}
	os.Exit(m.Run())
}

// miniServer runs `(exec -a MARKER sleep 100) & exec -a MARKER sleep 100`
// through Run. Mode "killall" handles SIGTERM as the server should:
// KillAll, then exit. Mode "spare" runs a quick command instead, prints
// "spare PID" (the idle supervisor it leaves) and waits.
func miniServer(marker, mode string) int {
	dir, err := os.MkdirTemp("", "chatls-mini-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
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
	if mode == "spare" {
		text, _ := bash(dir, "echo $PPID", 0)
		fmt.Println("spare", text)
		select {}
	}
	text, _ := bash(dir, fmt.Sprintf("(exec -a %[1]s sleep 100) & exec -a %[1]s sleep 100", marker), time.Minute)
	if terminating.Load() {
		time.Sleep(time.Minute) // KillAll ended it; the handler exits
	}
	// Only reached if the command ends before the server is killed.
	fmt.Fprintln(os.Stderr, "mini server: the call ended:", text)
	return 3
}

// bash runs `bash -c command` in dir through Run, as a bash call does, and
// returns its output without trailing white space.
func bash(dir, command string, timeout time.Duration) (string, Outcome) {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	var out bytes.Buffer
	res := Run(context.Background(), cmd, &out, timeout, nil)
	return strings.TrimRight(out.String(), " \t\n"), res
}
