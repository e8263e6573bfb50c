// Package proctest finds processes in /proc for tests that must prove a
// process is gone (Linux only; elsewhere the helpers skip the test).
package proctest

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Skip skips t where /proc cannot answer.
func Skip(t testing.TB) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
}

// stat returns the state letter and parent pid of pid; ok is false when the
// process does not exist.
func stat(pid int) (state byte, ppid int, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid …; comm may contain spaces and parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+4 > len(s) {
		return 0, 0, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(fields[1])
	return fields[0][0], ppid, true
}

// Alive reports whether pid runs: it exists and is not a zombie (a zombie
// waits for a parent, possibly a PID 1 that never reaps, but runs nothing).
func Alive(pid int) bool {
	state, _, ok := stat(pid)
	return ok && state != 'Z' && state != 'X'
}

// Descendants lists the living children of pid, their children and so on.
func Descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, pp, ok := stat(p); ok && Alive(p) {
			parent[p] = pp
		}
	}
	var out []int
	frontier := []int{pid}
	for len(frontier) > 0 {
		var next []int
		for p, pp := range parent {
			for _, f := range frontier {
				if pp == f {
					out = append(out, p)
					next = append(next, p)
				}
			}
		}
		frontier = next
	}
	return out
}

// PidsOf lists the living processes running the executable path.
func PidsOf(path string) []int {
	want, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink("/proc/" + e.Name() + "/exe")
		if err == nil && exe == want && Alive(p) {
			out = append(out, p)
		}
	}
	return out
}

// AwaitGone fails t unless every pid has stopped running within limit. It
// polls: process death is not an event a test can subscribe to.
func AwaitGone(t testing.TB, limit time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var alive []int
		for _, p := range pids {
			if Alive(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes %v still running %s later", alive, limit)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// AwaitFile waits until path exists and is non-empty, and returns its
// trimmed content (a pid written by a test script, say).
func AwaitFile(t testing.TB, path string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		data, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(data), "\n") {
			return strings.TrimSpace(string(data))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within %s", path, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Pid parses a pid written by a test script.
func Pid(t testing.TB, s string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || pid <= 0 {
		t.Fatalf("not a pid: %q", s)
	}
	return pid
}

// WithArg0 lists the living processes whose argv[0] is arg0 (a marker a
// test gives with `exec -a MARKER`).
func WithArg0(arg0 string) []int {
	var out []int
	for _, p := range Listed(arg0) {
		if Alive(p) {
			out = append(out, p)
		}
	}
	return out
}

// AwaitArg0 polls until cond holds for the number of living processes whose
// argv[0] is arg0, or fails t after limit.
func AwaitArg0(t testing.TB, limit time.Duration, arg0, what string, cond func(n int) bool) {
	t.Helper()
	awaitCount(t, limit, func() []int { return WithArg0(arg0) }, arg0, what, cond)
}

// Listed lists the processes whose argv[0] is arg0, zombies included: a
// test that must show nothing was left unreaped counts these.
func Listed(arg0 string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(cmdline), arg0+"\x00") {
			out = append(out, p)
		}
	}
	return out
}

// AwaitListed polls until cond holds for the number of processes Listed
// finds, or fails t after limit.
func AwaitListed(t testing.TB, limit time.Duration, arg0, what string, cond func(n int) bool) {
	t.Helper()
	awaitCount(t, limit, func() []int { return Listed(arg0) }, arg0, what, cond)
}

// awaitCount polls list until cond holds for its length, or fails t after
// limit. No event says a process ended in another's tree: /proc is looked at.
func awaitCount(t testing.TB, limit time.Duration, list func() []int, arg0, what string, cond func(n int) bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		pids := list()
		if cond(len(pids)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: processes %s: %v", what, arg0, pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
