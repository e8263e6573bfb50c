//go:build !unix

package procsup

import "os/exec"

// Prepare does nothing where there are no process groups.
func Prepare(*exec.Cmd) {}

// Kill kills the process itself.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// WaitLeader is not supported: callers reap first, then call Kill.
func WaitLeader(*exec.Cmd) bool { return false }
