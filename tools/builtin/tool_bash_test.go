package builtin

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/procsup"
	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/tools"
)

func TestBashOutputAndExitTexts(t *testing.T) {
	env := testEnv(t)
	tests := []struct {
		command string
		want    string
		isError bool
		exit    int
	}{
		{"echo hello; echo oops >&2", "hello\noops", false, 0},
		{"true", "(no output)", false, 0},
		{"echo partial; exit 3", "partial\n\nCommand exited with code 3", true, 3},
		{"exit 1", "(no output)\n\nCommand exited with code 1", true, 1},
		{"pwd", env.Dir, false, 0},
		{"printf 'a\\r\\nb\\x00\\xff\\x1b[1mc'", "a\nb\uFFFDc", false, 0},
		{"kill -9 $$", "(no output)\n\nCommand exited with code 137", true, 137},
		{"cat", "(no output)", false, 0}, // stdin is /dev/null: nothing waits for input
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			res := run(t, env, "bash", map[string]any{"command": tt.command})
			wantText(t, res, tt.want)
			if res.IsError != tt.isError || res.ExitCode == nil || *res.ExitCode != tt.exit {
				t.Errorf("IsError=%v ExitCode=%v", res.IsError, res.ExitCode)
			}
		})
	}
}

func TestBashRunsInConfiguredCwdWithNewlineInPath(t *testing.T) {
	env := testEnv(t)
	odd := filepath.Join(env.Dir, "with\nnewline")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	env.BashCwd = "with\nnewline"
	res := run(t, env, "bash", map[string]any{"command": "basename \"$PWD\" | od -c | head -1"})
	wantContains(t, res, `w   i   t   h  \n   n   e   w   l   i   n   e`)
}

// echoPgid prints the command's process group (its supervisor's pid, not $$).
const echoPgid = `s=$(</proc/$$/stat); s=${s##*) }; set -- $s; echo $3; `

// processesInGroup lists live processes whose process group or session is id.
func processesInGroup(t *testing.T, id int) []string {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 4 || fields[0] == "Z" {
			continue
		}
		if fields[2] == strconv.Itoa(id) || fields[3] == strconv.Itoa(id) {
			found = append(found, e.Name()+" "+s)
		}
	}
	return found
}

func TestBashTimeoutKillsBackgroundJobs(t *testing.T) {
	env := testEnv(t)
	start := time.Now()
	// 3 s: the process group's ID must be printed before the timeout, also
	// on a busy machine.
	res := run(t, env, "bash", map[string]any{"command": echoPgid + "sleep 100 & sleep 100; wait", "timeout": 3})
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("took %s", elapsed)
	}
	lines := strings.Split(res.Text, "\n")
	pgid, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatalf("no pid in %q", res.Text)
	}
	if !strings.HasSuffix(res.Text, "\n\nCommand timed out after 3 seconds.") || !res.IsError {
		t.Errorf("text %q", res.Text)
	}
	// The decision log records how it ended: killed (137) on timeout.
	if !res.TimedOut || res.ExitCode == nil || *res.ExitCode != 137 {
		t.Errorf("TimedOut=%v ExitCode=%v", res.TimedOut, res.ExitCode)
	}
	if left := processesInGroup(t, pgid); len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}
}

func TestBashBackgroundJobsDoNotOutliveTheCommand(t *testing.T) {
	env := testEnv(t)
	res := run(t, env, "bash", map[string]any{"command": echoPgid + "sleep 100 &"})
	pgid, err := strconv.Atoi(strings.TrimSpace(res.Text))
	if err != nil || pgid <= 1 {
		t.Fatalf("no process group in %q", res.Text)
	}
	if left := processesInGroup(t, pgid); len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}
}

func TestBashCancelOneOfParallelCalls(t *testing.T) {
	reg := tools.NewRegistry(Tools(Options{}))
	r := tools.NewRunner(reg)
	env := testEnv(t)
	goFile := filepath.Join(env.Dir, "go")
	ready := make(chan string, 30)
	var wg sync.WaitGroup
	results := map[string]tools.Result{}
	var mu sync.Mutex
	cancels := map[string]context.CancelCauseFunc{}
	for _, id := range []string{"a", "b", "c"} {
		e := env
		var once sync.Once
		ctx, cancel := context.WithCancelCause(context.Background())
		cancels[id] = cancel
		e.Progress = func(p tools.Progress) {
			if p.LastLine == "ready "+id {
				once.Do(func() { ready <- id })
			}
		}
		wg.Go(func() {
			res := r.Run(ctx, tools.Call{ID: id, Name: "bash", Input: map[string]any{
				"command": "{ " + echoPgid + "} > pid-" + id + "; echo ready " + id + "; while [ ! -e go ]; do sleep 0.05; done; echo finished " + id,
			}}, e)
			mu.Lock()
			results[id] = res
			mu.Unlock()
		})
	}
	for range 3 {
		<-ready
	}
	cancels["b"](tools.ErrCancelled)
	// b ends by itself, while a and c still wait for the go file.
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); _, ok := results["b"]; return ok })
	testfs.Write(t, goFile, "")
	wg.Wait()
	// What it printed stays, then the cancel text (as for a timeout).
	if res := results["b"]; !res.Cancelled || res.Text != "ready b\n\n"+tools.CancelledText || !res.IsError || res.ExitCode == nil || *res.ExitCode != 137 {
		t.Errorf("b: %+v", res)
	}
	for _, id := range []string{"a", "c"} {
		if res := results[id]; res.Text != "ready "+id+"\nfinished "+id || res.IsError {
			t.Errorf("%s: %+v", id, res)
		}
	}
	pidText, _ := os.ReadFile(filepath.Join(env.Dir, "pid-b"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if left := processesInGroup(t, pid); pid == 0 || len(left) > 0 {
		t.Errorf("cancelled group %d left %v", pid, left)
	}
}

func TestBashProgressStream(t *testing.T) {
	env := testEnv(t)
	got := make(chan tools.Progress, 1000)
	env.Progress = func(p tools.Progress) { got <- p }
	done := make(chan tools.Result)
	go func() {
		done <- run(t, env, "bash", map[string]any{"command": "echo first; echo second; while [ ! -e stop ]; do sleep 0.02; done"})
	}()
	var last tools.Progress
	for p := range got {
		if p.LastLine == "second" {
			last = p
			break
		}
	}
	testfs.Write(t, filepath.Join(env.Dir, "stop"), "")
	<-done
	if last.ElapsedMillis <= 0 {
		t.Errorf("elapsed %d", last.ElapsedMillis)
	}
	// At most one report per interval: count what arrived while running.
	close(got)
	var prev int64 = -1
	for p := range got {
		if prev >= 0 && p.ElapsedMillis-prev < int64(procsup.TickEvery/time.Millisecond)/2 {
			t.Errorf("reports %dms apart", p.ElapsedMillis-prev)
		}
		prev = p.ElapsedMillis
	}
}

func TestBashTruncatesTailAndSavesFullOutput(t *testing.T) {
	env := testEnv(t)
	res := run(t, env, "bash", map[string]any{"command": "seq 1 5000"})
	if !res.Truncated || res.FullOutputPath == "" || filepath.Dir(res.FullOutputPath) != env.TempDir {
		t.Fatalf("%+v", res)
	}
	if !strings.HasPrefix(res.Text, "3001\n3002\n") {
		t.Errorf("starts %q", res.Text[:20])
	}
	wantContains(t, res, "4999\n5000\n\n[Showing lines 3001-5000 of 5000. Full output: "+res.FullOutputPath+"]")
	saved, _ := os.ReadFile(res.FullOutputPath)
	if strings.Count(string(saved), "\n") != 5000 {
		t.Errorf("saved %d lines", strings.Count(string(saved), "\n"))
	}
	// Byte limit: 100 lines of 1000 bytes keep the last 51 whole lines (50 KB).
	res = run(t, env, "bash", map[string]any{"command": "for i in $(seq 1 100); do printf \"%0999d\\n\" $i; done; exit 2"})
	wantContains(t, res, "[Showing lines 50-100 of 100. Full output: ", "]\n\nCommand exited with code 2")
}

// TestBashHugeOutputKeepsMemoryBounded streams 2 GB through the tool and
// checks the Go heap did not grow with it.
func TestBashHugeOutputKeepsMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 2 GB")
	}
	env := testEnv(t)
	env.Limits = tools.Limits{MaxSavedBytes: 8 << 20} // keep the disk out of the measurement
	var peak uint64
	env.Progress = func(tools.Progress) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := run(t, env, "bash", map[string]any{"command": "head -c 2000000000 /dev/zero | tr '\\0' 'a'; echo; echo end", "timeout": 60})
	t.Logf("2 GB in %s, heap in use %d KB before, peak %d KB", time.Since(start), before.HeapInuse>>10, peak>>10)
	if peak > before.HeapInuse+32<<20 {
		t.Errorf("heap grew by %d MB", (peak-before.HeapInuse)>>20)
	}
	if !res.Truncated || !strings.HasPrefix(res.Text, "end\n\n[Showing lines 2-2 of 2. Full output: ") {
		t.Errorf("text %.300q", res.Text)
	}
	wantContains(t, res, "[The saved file holds only the first 8.0 MB of 1.9 GB.]")
	if fi, err := os.Stat(res.FullOutputPath); err != nil || fi.Size() != 8<<20 {
		t.Errorf("saved file: %v %v", fi, err)
	}
}
