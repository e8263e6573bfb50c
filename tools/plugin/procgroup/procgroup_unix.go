//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Prepare makes cmd (not yet started) lead its own process group and die
// with chatls where the system supports it.
func Prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
}

// Kill sends SIGKILL to cmd's whole process group (a no-op before Start).
// Call it before reaping the leader (see WaitLeader) or right after: a group
// ID cannot be reused while any member is alive.
func Kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
