package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/procsup"
)

// supervisorChildren counts the tool supervisors the server process has
// started (its children whose argv[0] is procsup.Arg0).
func supervisorChildren(t *testing.T, serverPID int) int {
	t.Helper()
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range procs {
		data, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so cut at the last ')'.
		rest := string(data[bytes.LastIndexByte(data, ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid != serverPID {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(stat), "cmdline"))
		if argv0, _, _ := bytes.Cut(cmdline, []byte{0}); string(argv0) == procsup.Arg0 {
			n++
		}
	}
	return n
}

// A pending bash call means an approval may come any moment: the server
// has a tool supervisor ready before it, so the approved call does not pay
// for starting one. A document with nothing pending starts none.
func TestPendingBashPrewarmsASupervisor(t *testing.T) {
	s := start(t, sessionOptions{})
	pid := s.c.Process().Process.Pid
	idle := s.open("idle.chat", "@You:\nhello\n\n@Assistant:\nhi\n")
	s.settle(idle)
	if n := supervisorChildren(t, pid); n != 0 {
		t.Fatalf("%d supervisors before any bash call is pending", n)
	}
	uri := s.open("pending.chat", "@Assistant:\n**Tool Use:** `bash` (`toolu_w1`)\n\n```json\n{\"command\": \"true\"}\n```\n\n@You:\n\n**Tool Result:** `toolu_w1`\n\n```flemma:tool status=pending\n```\n")
	s.waitDiagnostic(uri, "approval pending")
	deadline := time.Now().Add(10 * time.Second)
	for supervisorChildren(t, pid) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no supervisor was started for the pending bash call (server pid %d)", pid)
		}
		time.Sleep(20 * time.Millisecond) // polling /proc: no event tells a process appeared
	}
}
