// Package procsup is the supervisor every chatls tool process runs under: a
// re-exec of the current binary (see tools/supervisor.go for the parent side).
//
// The supervisor starts the tool in a process group of its own, is the child
// subreaper of everything the tool starts, and holds the read end of a
// "lifeline" pipe whose only write end stays in chatls. It ends the call's
// processes — the tool's group, then every orphan that lands on it (also
// those that left the group with setsid or job control), reaping each — when
// the tool exits and when the lifeline reaches EOF: chatls cut it (timeout,
// cancel, KillAll) or chatls is gone by any means, SIGKILL included, since the
// kernel closes a dead process's files.
//
// It is served by this package's init, so every binary that can start tools
// (chatls, its tests, other packages' test binaries) is also a supervisor,
// with no hook in main. The package imports only what the runtime has
// initialized anyway, so its init runs before heavy ones (a JSON-schema
// library spends milliseconds in its init): the supervisor starts in ~1 ms.
package procsup

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

const (
	// Arg0 is the supervisor's argv[0]; argv[1] is the tool's resolved path,
	// argv[2:] the tool's argv.
	Arg0 = "chatls-tool-supervisor"
	// Env=1 must be set too, so a stray argv[0] never turns chatls into one.
	Env = "CHATLS_TOOL_SUPERVISOR"
	// Self is what the parent executes.
	Self = "/proc/self/exe"
	// LifelineFD is the pipe's read end in the supervisor (ExtraFiles[0]).
	LifelineFD = 3
)

func init() {
	if len(os.Args) > 2 && os.Args[0] == Arg0 && os.Getenv(Env) == "1" {
		os.Exit(supervise(os.Args[1], os.Args[2:]))
	}
}

// Linux constants not in package syscall.
const (
	prSetChildSubreaper = 36
	pPID                = 1
	wNoWait             = 0x1000000
)

// supervise exits with the tool's status (128+N for death by signal N, as
// the shell reports it) once no process of the call is left.
func supervise(path string, argv []string) int {
	syscall.CloseOnExec(LifelineFD)
	os.Unsetenv(Env)
	// Orphans of the call become our children, so we can kill and reap them.
	syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0)

	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		// Its own group, so killing it spares us; it dies with us in any case.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		os.Stderr.WriteString("chatls: cannot start " + path + ": " + err.Error() + "\n")
		return 127
	}
	done := make(chan struct{}, 2)
	go func() {
		waitNoReap(pid) // so the group ID stays valid for the kill below
		done <- struct{}{}
	}()
	go func() {
		var buf [64]byte
		for {
			n, err := syscall.Read(LifelineFD, buf[:])
			if n > 0 || err == syscall.EINTR {
				continue
			}
			break // EOF or error: chatls cut the lifeline or is gone
		}
		done <- struct{}{}
	}()
	<-done
	syscall.Kill(-pid, syscall.SIGKILL) // background jobs included
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	reapAll()
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// waitNoReap waits until pid has exited, leaving it a zombie (waitid WNOWAIT).
func waitNoReap(pid int) {
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|wNoWait, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}

// reapAll kills every child left (orphans reparented to us, in whatever group
// or session) and reaps them until none remains: then no descendant is left.
// /proc is read only when a child is still alive: entries it creates under
// /proc/self cost chatls a dcache walk when it reaps us (~3 ms).
func reapAll() {
	var ws syscall.WaitStatus
	for {
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.ECHILD:
			return
		case err == syscall.EINTR || pid > 0:
			continue
		}
		for _, pid := range children() {
			syscall.Kill(pid, syscall.SIGKILL) // unreaped, so the pid is still theirs
		}
		if _, err := syscall.Wait4(-1, &ws, 0, nil); err == syscall.ECHILD {
			return
		}
	}
}

// children lists this process's children from /proc/self/task/*/children,
// or, on kernels without that file, by scanning every process's parent.
func children() []int {
	var pids []int
	tasks, _ := os.ReadDir("/proc/self/task")
	found := false
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		found = true
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if found {
		return pids
	}
	self := strconv.Itoa(os.Getpid())
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the command name: state, ppid, …
		s := string(stat)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 1 && f[1] == self {
			pids = append(pids, pid)
		}
	}
	return pids
}
