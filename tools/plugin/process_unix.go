//go:build unix

package plugin

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the plugin in its own group so that killing it also
// kills whatever it spawned.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
