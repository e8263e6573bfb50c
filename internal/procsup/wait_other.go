//go:build unix && !linux

package procsup

import "os/exec"

// WaitLeader is not supported here: callers reap first, then call Kill.
func WaitLeader(*exec.Cmd) bool { return false }
