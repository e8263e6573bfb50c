//go:build !linux

package procsup

import "os/exec"

// No supervisor outside Linux (no subreaper, no /proc/self/exe).
func supervise(*exec.Cmd) bool   { return false }
func cutLifeline(*exec.Cmd) bool { return false }
