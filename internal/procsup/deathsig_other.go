//go:build unix && !linux

package procsup

import "syscall"

// setDeathSignal: no parent-death signal here; a plugin that ignores EOF on
// stdin survives a crash of chatls.
func setDeathSignal(*syscall.SysProcAttr) {}
