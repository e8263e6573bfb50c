package procsup

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func requireSupervision(t *testing.T) {
	t.Helper()
	if !Available {
		t.Skip("no /proc/self/exe: unsupervised")
	}
}

// procStat returns the state letter, parent pid and argv[0] of pid; ok is
// false once it is gone (reaped).
func procStat(pid int) (state byte, ppid int, arg0 string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, "", false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ppid, _ = strconv.Atoi(f[1])
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	arg0, _, _ = strings.Cut(string(cmdline), "\x00")
	return f[0][0], ppid, arg0, true
}

// await polls cond until it holds or fails the test after the deadline.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ourSupervisors lists our children that are tool supervisors, and zombies
// among all our children.
func ourSupervisors() (live, zombies []int) {
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			state, _, arg0, ok := procStat(pid)
			switch {
			case !ok:
			case state == 'Z':
				zombies = append(zombies, pid)
			case arg0 == Arg0:
				live = append(live, pid)
			}
		}
	}
	return live, zombies
}

// supervisorOf runs `echo $PPID` plus more in dir and returns the
// supervisor's pid and the rest of the output.
func supervisorOf(t *testing.T, dir, command string) (int, string) {
	t.Helper()
	text, res := bash(dir, "echo $PPID; "+command, time.Minute)
	first, rest, _ := strings.Cut(text, "\n")
	pid, err := strconv.Atoi(first)
	if err != nil || res.ExitCode != 0 || res.StartErr != nil {
		t.Fatalf("output %q, outcome %+v", text, res)
	}
	return pid, rest
}

// TestSupervisorServesCallsInTurn: consecutive calls run under the same warm
// supervisor, each with the environment and directory chatls has at the
// call, not at the supervisor's start; the supervisor's own marker never
// reaches a command.
func TestSupervisorServesCallsInTurn(t *testing.T) {
	requireSupervision(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "second"), 0o755); err != nil {
		t.Fatal(err)
	}
	const show = `echo "$CHATLS_TEST_HANDOVER ${CHATLS_TOOL_SUPERVISOR-unset} $PWD"`
	t.Setenv("CHATLS_TEST_HANDOVER", "first")
	sup1, out1 := supervisorOf(t, dir, show)
	t.Setenv("CHATLS_TEST_HANDOVER", "second")
	sup2, out2 := supervisorOf(t, filepath.Join(dir, "second"), show)

	if want := "first unset " + dir; out1 != want {
		t.Errorf("first call: %q, want %q", out1, want)
	}
	if want := "second unset " + filepath.Join(dir, "second"); out2 != want {
		t.Errorf("second call: %q, want %q", out2, want)
	}
	if sup1 != sup2 {
		t.Errorf("the second call ran under supervisor %d, not the warm %d", sup2, sup1)
	}
	if _, ppid, arg0, ok := procStat(sup1); !ok || arg0 != Arg0 || ppid != os.Getpid() {
		t.Errorf("process %d: argv[0] %q, parent %d, alive %v", sup1, arg0, ppid, ok)
	}
}

// TestSpareSupervisorDeath: a spare killed while idle is reaped (no zombie)
// and forgotten; the next call starts a supervisor of its own, and a spare
// that had lived is replaced in the background.
func TestSpareSupervisorDeath(t *testing.T) {
	requireSupervision(t)
	dir := t.TempDir()
	spare, _ := supervisorOf(t, dir, "true")
	syscall.Kill(spare, syscall.SIGKILL)
	await(t, "the killed spare is reaped", func() bool { _, _, _, ok := procStat(spare); return !ok })
	next, _ := supervisorOf(t, dir, "true")
	if next == spare {
		t.Fatalf("a call ran under the dead spare %d", spare)
	}

	setRespawnAfter := func(d time.Duration) {
		pool.mu.Lock()
		pool.respawnAfter = d
		pool.mu.Unlock()
	}
	setRespawnAfter(0)
	t.Cleanup(func() { setRespawnAfter(time.Second) })
	syscall.Kill(next, syscall.SIGKILL)
	await(t, "a new spare replaces the dead one", func() bool {
		pool.mu.Lock()
		defer pool.mu.Unlock()
		return pool.idle != nil && pool.idle.proc.Pid != next
	})
	pool.mu.Lock()
	respawned := pool.idle.proc.Pid
	pool.mu.Unlock()
	if got, _ := supervisorOf(t, dir, "true"); got != respawned {
		t.Errorf("the call ran under %d, not the respawned spare %d", got, respawned)
	}
}

// TestAtMostOneSpareSupervisor: concurrent calls each get a supervisor; once
// they are done one stays as the spare and the others exit and are reaped.
func TestAtMostOneSpareSupervisor(t *testing.T) {
	requireSupervision(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	sups := make([]string, 4)
	for i := range sups {
		wg.Go(func() {
			// Each waits until all four run, so they overlap.
			sups[i], _ = bash(dir, fmt.Sprintf(`touch started-%d; until [ "$(ls started-* | wc -l)" = 4 ]; do sleep 0.01; done; echo $PPID`, i), time.Minute)
		})
	}
	wg.Wait()
	distinct := map[string]bool{}
	for _, s := range sups {
		distinct[s] = true
	}
	if len(distinct) != 4 {
		t.Errorf("four overlapping calls ran under supervisors %v", sups)
	}
	await(t, "one spare supervisor and no zombie left", func() bool {
		live, zombies := ourSupervisors()
		return len(live) == 1 && len(zombies) == 0
	})
	live, _ := ourSupervisors()
	if !distinct[strconv.Itoa(live[0])] {
		t.Errorf("the spare %d is none of the calls' supervisors %v", live[0], sups)
	}
}

// TestSupervisedCallsLeakNoFiles: calls, failed starts included, leave no
// file descriptor open in chatls.
func TestSupervisedCallsLeakNoFiles(t *testing.T) {
	requireSupervision(t)
	dir := t.TempDir()
	count := func() int {
		fds, _ := os.ReadDir("/proc/self/fd")
		return len(fds)
	}
	supervisorOf(t, dir, "true") // the spare's socket is there from now on
	before := count()
	for range 10 {
		supervisorOf(t, dir, "echo out; echo err >&2")
		out := Run(context.Background(), exec.Command("/nonexistent/tool"), io.Discard, time.Minute, nil)
		if out.StartErr == nil {
			t.Fatal("a missing executable started")
		}
	}
	if after := count(); after != before {
		t.Errorf("%d open files before, %d after", before, after)
	}
}

// TestSupervisorStartErrorKeepsTheSpare: a command that cannot start is
// reported with the supervisor's reason, and the supervisor serves on.
func TestSupervisorStartErrorKeepsTheSpare(t *testing.T) {
	requireSupervision(t)
	dir := t.TempDir()
	spare, _ := supervisorOf(t, dir, "true")
	out := Run(context.Background(), exec.Command("/nonexistent/tool"), io.Discard, time.Minute, nil)
	if out.StartErr == nil || out.StartErr.Error() != "cannot start /nonexistent/tool: no such file or directory" {
		t.Errorf("start error %v", out.StartErr)
	}
	if again, _ := supervisorOf(t, dir, "true"); again != spare {
		t.Errorf("next call under %d, not the spare %d", again, spare)
	}
}

// TestSupervisorTakesLargeCommands: a command near the kernel's limit for one
// argument (128 KB) crosses the control socket in several reads.
func TestSupervisorTakesLargeCommands(t *testing.T) {
	big := strings.Repeat("x", 120000)
	if text, _ := bash(t.TempDir(), "s='"+big+"'; echo ${#s}", time.Minute); text != "120000" {
		t.Errorf("output %q", text)
	}
}

// TestIdleSpareDiesWithTheServer: the idle spare exits when chatls is killed.
func TestIdleSpareDiesWithTheServer(t *testing.T) {
	requireSupervision(t)
	server := exec.Command(os.Args[0], "-test.run=^$")
	server.Env = append(os.Environ(), miniServerEnv+"=spare", miniServerEnv+"_MODE=spare")
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Process.Kill(); server.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "spare ")))
	if err != nil {
		t.Fatalf("mini server said %q", line)
	}
	if _, _, arg0, ok := procStat(pid); !ok || arg0 != Arg0 {
		t.Fatalf("spare %d: %q %v", pid, arg0, ok)
	}
	server.Process.Signal(syscall.SIGKILL)
	server.Wait()
	await(t, "the spare exits", func() bool {
		state, _, _, ok := procStat(pid)
		return !ok || state == 'Z' // a zombie waits for init, which may not reap
	})
}

// TestExtraFilesReachTheCommand: a command's ExtraFiles are its fds 3 and
// 4, supervised or not (bubblewrap's status pipe travels so), chatls keeps
// no copy of them, and more than the protocol carries is refused.
func TestExtraFilesReachTheCommand(t *testing.T) {
	count := func() int {
		fds, _ := os.ReadDir("/proc/self/fd")
		return len(fds)
	}
	Run(context.Background(), exec.Command("true"), io.Discard, time.Minute, nil) // a spare from now on
	before := count()
	r3, w3, _ := os.Pipe()
	r4, w4, _ := os.Pipe()
	cmd := exec.Command("bash", "-c", "echo three >&3; echo four >&4; echo out")
	cmd.ExtraFiles = []*os.File{w3, w4}
	var out strings.Builder
	res := Run(context.Background(), cmd, &out, time.Minute, nil)
	w3.Close()
	w4.Close()
	got3, _ := io.ReadAll(r3)
	got4, _ := io.ReadAll(r4)
	r3.Close()
	r4.Close()
	if res.StartErr != nil || res.ExitCode != 0 || out.String() != "out\n" || string(got3) != "three\n" || string(got4) != "four\n" {
		t.Fatalf("outcome %+v, output %q, fd 3 %q, fd 4 %q", res, out.String(), got3, got4)
	}
	if after := count(); after != before {
		t.Errorf("%d open files before, %d after", before, after)
	}
	many := exec.Command("true")
	many.ExtraFiles = []*os.File{os.Stdin, os.Stdin, os.Stdin, os.Stdin}
	if res := Run(context.Background(), many, io.Discard, time.Minute, nil); res.StartErr == nil {
		t.Error("four extra files were taken")
	}
}
