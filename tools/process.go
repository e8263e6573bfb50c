package tools

import "github.com/chatls/chatls/internal/procsup"

// The process runtime is internal/procsup; these are its entry points for
// the server and the command, which stop and prepare tool processes.

// KillAll ends every bash call's processes with SIGKILL and returns how
// many calls it stopped (procsup.KillAll). The server calls it when it is
// about to exit (SIGTERM, SIGINT, SIGHUP, end of the LSP session); the
// calls then end as killed processes (exit code 137). It does not wait, and
// is safe from a signal-handling goroutine and any number of times.
func KillAll() int { return procsup.KillAll() }

// Prewarm starts the spare supervisor in the background if there is none,
// for a server that expects a bash call soon (procsup.Prewarm).
func Prewarm() { procsup.Prewarm() }
