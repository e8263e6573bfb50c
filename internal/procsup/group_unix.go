//go:build unix

package procsup

import (
	"os/exec"
	"syscall"
)

// Prepare makes cmd (not yet started, Path resolved) run supervised, or else
// lead its own process group and die with chatls where the system supports
// it.
func Prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true // terminal signals to chatls's group spare it
	if !supervise(cmd) {
		setDeathSignal(cmd.SysProcAttr)
	}
}

// Kill ends cmd's child and everything it started: a supervised child by
// cutting its lifeline, else by SIGKILL to its process group (a no-op before
// Start). Unsupervised, call it before reaping the leader (see WaitLeader)
// or right after: a group ID cannot be reused while any member is alive.
func Kill(cmd *exec.Cmd) {
	if cutLifeline(cmd) || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
