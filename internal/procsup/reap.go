//go:build linux

package procsup

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

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
		pid, err := rawWait4(-1, &ws, syscall.WNOHANG)
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

// exitCode follows the shell convention: 128+N for death by signal N.
func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
