//go:build linux

// Package procsup is chatls's process runtime: every program chatls starts
// for a tool runs under a supervisor, a re-exec of the current binary. Both
// sides live here: the supervisor itself (serve.go, call.go, reap.go), and
// the parent's — Run and the pool of serving supervisors for bash calls
// (run.go, pool.go, supervised.go), Prepare, Kill and WaitLeader for plugins,
// MCP servers and policy resolvers (group.go).
//
// A supervisor starts the command in a process group of its own, is the
// child subreaper of everything the command starts, and holds a socket or
// pipe whose only other end stays in chatls. It ends the call's processes —
// the command's group, then every orphan that lands on it (also those that
// left the group with setsid or job control), reaping each — when the
// command exits and when its end reaches EOF: chatls closed it (timeout,
// cancel, KillAll) or chatls is gone by any means, SIGKILL included, since
// the kernel closes a dead process's files. SIGTERM, SIGINT and SIGHUP do the
// same.
//
// Two modes. A serving supervisor (ServeMode, for bash) is started ahead of
// need and runs one call after another, each handed over on its control
// socket (protocol.go): the call's start then costs no exec of chatls. A
// one-shot supervisor (OneShotMode, for plugins and stdio MCP servers) runs
// the command in its argv with its own stdin, stdout and stderr.
//
// It is served by this package's init, so every binary that can start tools
// (chatls, its tests, other packages' test binaries) is also a supervisor,
// with no hook in main. The package imports only small packages, so its init
// runs before heavy ones (a JSON-schema library spends milliseconds in its
// init): a supervisor starts in about a millisecond of CPU.
//
// The supervisor is Linux's (a subreaper, /proc/self/exe); elsewhere only
// Prepare, Kill and WaitLeader exist, with process groups alone.
package procsup

import (
	"os"
	"syscall"
)

const (
	// Arg0 is a supervisor's argv[0]. One-shot: argv[1] is the command's
	// resolved path, argv[2:] its argv.
	Arg0 = "chatls-tool-supervisor"
	// Env must be set too, to a mode, so a stray argv[0] never turns chatls
	// into a supervisor. The supervisor removes it before starting commands.
	Env         = "CHATLS_TOOL_SUPERVISOR"
	OneShotMode = "1"
	ServeMode   = "serve"
	// Self is what the parent executes.
	Self = "/proc/self/exe"
	// ControlFD is the supervisor's end of its lifeline (ExtraFiles[0]): the
	// control socket when serving, the read end of a pipe in one-shot mode.
	ControlFD = 3
)

// Available is false where /proc/self/exe cannot be executed: the parents
// then run commands directly, in their own group with the parent-death
// signal.
var Available = func() bool {
	fi, err := os.Stat(Self)
	return err == nil && fi.Mode().IsRegular()
}()

func init() {
	if len(os.Args) == 0 || os.Args[0] != Arg0 {
		return
	}
	switch os.Getenv(Env) {
	case ServeMode:
		os.Exit(serve())
	case OneShotMode:
		if len(os.Args) > 2 {
			os.Exit(oneShot(os.Args[1], os.Args[2:]))
		}
	}
}

// prepare makes this process a supervisor: the lifeline does not leak into
// commands, the marker does not reach them, and orphans of a call become our
// children, so we can kill and reap them.
func prepare() *waker {
	syscall.CloseOnExec(ControlFD)
	os.Unsetenv(Env)
	syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0)
	return newWaker()
}

// oneShot runs one command with our stdin, stdout and stderr and exits with
// its status once no process of it is left.
func oneShot(path string, argv []string) int {
	w := prepare()
	c, err := start(path, argv, os.Environ(), "", []uintptr{0, 1, 2})
	if err != nil {
		os.Stderr.WriteString("chatls: cannot start " + path + ": " + err.Error() + "\n")
		return 127
	}
	w.await(c, ControlFD)
	return c.end()
}
