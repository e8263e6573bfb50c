package procsup

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// WaitLeader blocks until cmd's process has exited, without reaping it, so
// that its group can be killed while the group ID is still reserved. It
// returns true; also when the process was already reaped by someone else
// (then Kill is still safe enough: see Kill). A supervisor exits only once
// its child and everything that child started are gone.
func WaitLeader(cmd *exec.Cmd) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	releaseLifeline(cmd)
	return true
}
