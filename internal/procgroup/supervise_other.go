//go:build !linux

package procgroup

import "os/exec"

// No supervisor outside Linux (no subreaper, no /proc/self/exe).
func supervise(*exec.Cmd) bool { return false }
func cut(*exec.Cmd) bool       { return false }
