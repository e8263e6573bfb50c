package procsup

import "syscall"

// setDeathSignal: the kernel sends SIGKILL to the child when the thread that
// started it exits. Go ends threads only when a goroutine locked to one
// returns without unlocking, which chatls never does, so in practice this
// fires when chatls exits, crashes or is killed.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
