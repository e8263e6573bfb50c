package plugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"go.uber.org/zap/zaptest"
)

// newTestSource starts testplugin in mode with short timeouts.
func newTestSource(t *testing.T, mode string, env map[string]string) *Source {
	t.Helper()
	s := NewSource(config.Plugin{Name: "tp", Path: testPluginBin, Args: []string{mode}, Env: env}, zaptest.NewLogger(t))
	// Generous: a test plugin that starts slowly on a busy machine must not
	// read as one that never answers (tests of that set their own).
	s.initTimeout = 30 * time.Second
	s.backoffMin = 20 * time.Millisecond
	t.Cleanup(func() { s.Close() })
	return s
}

func load(t *testing.T, s *Source) map[string]tools.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := s.Load(ctx)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	byName := map[string]tools.Tool{}
	for _, tool := range list {
		byName[tool.Definition().Name] = tool
	}
	return byName
}

func run(t *testing.T, tool tools.Tool, input map[string]any) tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return tool.Run(ctx, tools.Call{ID: "toolu_1", Name: tool.Definition().Name, Input: input}, tools.Env{Dir: "/docs"})
}

func wantResult(t *testing.T, got tools.Result, isError bool, substrings ...string) {
	t.Helper()
	if got.IsError != isError {
		t.Errorf("IsError = %v, want %v (text %q)", got.IsError, isError, got.Text)
	}
	for _, s := range substrings {
		if !strings.Contains(got.Text, s) {
			t.Errorf("result %q does not contain %q", got.Text, s)
		}
	}
}

func TestExampleWordcountPlugin(t *testing.T) {
	s := NewSource(config.Plugin{Name: "wc", Path: wordcountBin}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	wc := load(t, s)["wordcount"]
	if wc == nil {
		t.Fatal("wordcount tool missing")
	}
	def := wc.Definition()
	if def.Source != "plugin:wc" || !strings.Contains(string(def.Schema), `"additionalProperties":false`) || def.PreviewTemplate == "" {
		t.Errorf("definition = %+v", def)
	}
	wantResult(t, run(t, wc, map[string]any{"text": "a b c", "path": nil}), false, "1 lines, 3 words, 5 characters")
	if got := tools.Preview(def, map[string]any{"path": "notes.md", "text": nil}, 80); got != "wordcount: notes.md" {
		t.Errorf("preview = %q", got)
	}
	reg := tools.NewRegistry(nil)
	reg.Replace(s.Name(), []tools.Tool{wc})
	if errs := reg.Validate("wordcount", map[string]any{"text": "x", "path": nil, "extra": 1}); len(errs) == 0 {
		t.Error("the plugin's schema did not reject an extra property")
	}

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\ny\n"), 0o644)
	got := wc.Run(context.Background(), tools.Call{ID: "t2", Input: map[string]any{"path": "f.txt"}}, tools.Env{Dir: dir})
	wantResult(t, got, false, "2 lines, 2 words, 4 characters")
}

func TestDefinitions(t *testing.T) {
	s := newTestSource(t, "ok", nil)
	s.cfg.Preview = ""
	byName := load(t, s)
	echo := byName["echo"].Definition()
	if echo.Source != "plugin:tp" || echo.Description != "Echo text" || !strings.Contains(string(echo.Schema), `"text"`) {
		t.Errorf("echo = %+v", echo)
	}
	if got := string(byName["crash"].Definition().Schema); got != `{"type":"object"}` {
		t.Errorf("default schema = %s", got)
	}
	if got := byName["slow"].Definition().PreviewTemplate; got != "{{.ms}}ms" {
		t.Errorf("plugin-declared preview = %q", got)
	}
}

func TestConfigPreviewOverridesPluginPreview(t *testing.T) {
	s := newTestSource(t, "ok", nil)
	s.cfg.Preview = "custom {{.text}}"
	if got := load(t, s)["slow"].Definition().PreviewTemplate; got != "custom {{.text}}" {
		t.Errorf("preview = %q", got)
	}
}

func TestEchoSendsCwd(t *testing.T) {
	s := newTestSource(t, "ok", nil)
	echo := load(t, s)["echo"]
	wantResult(t, run(t, echo, map[string]any{"text": "hi"}), false, "hi")
	wantResult(t, run(t, echo, nil), false, "cwd=/docs")
}

func TestConcurrentCallsAreMatchedByCallID(t *testing.T) {
	s := newTestSource(t, "ok", nil)
	slow := load(t, s)["slow"]
	start := time.Now()
	var wg sync.WaitGroup
	results := make([]tools.Result, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Later calls finish first, so answers come back out of order.
			ms := float64(3000 - 500*i)
			results[i] = slow.Run(context.Background(), tools.Call{ID: "same-id", Input: map[string]any{"ms": ms}}, tools.Env{})
		}()
	}
	wg.Wait()
	for i, r := range results {
		wantResult(t, r, false, "slept "+fmt.Sprint(3000-500*i)+"ms")
	}
	// One after another they take 10.5 s; together about 3 s (sleeps this
	// long leave a busy machine 5 s of slack; with 0.6 s it had 0.9).
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("6 concurrent calls took %s; they ran one after another", d)
	}
}

func TestCrashMidCallRestarts(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	s := newTestSource(t, "ok", map[string]string{"TESTPLUGIN_STARTS": starts})
	byName := load(t, s)
	wantResult(t, run(t, byName["crash"], nil), true,
		"plugin tp died while running crash", "exit status 3", "panic: runtime error", "restarts it")
	// The next call waits for the restart instead of failing.
	wantResult(t, run(t, byName["echo"], map[string]any{"text": "back"}), false, "back")
	if n := countLines(t, starts); n != 2 {
		t.Errorf("plugin started %d times, want 2", n)
	}
}

func TestGarbageOnStdoutIsAClearError(t *testing.T) {
	s := newTestSource(t, "ok", nil)
	byName := load(t, s)
	wantResult(t, run(t, byName["garbage"], nil), true,
		"not a protocol message", `"DEBUG: starting work on toolu_1"`, "stderr")
	wantResult(t, run(t, byName["echo"], map[string]any{"text": "still here"}), false, "still here")
}

func TestFloodingStdoutIsBounded(t *testing.T) {
	s := newTestSource(t, "ok", nil)
	s.maxLine = 1 << 20
	byName := load(t, s)
	wantResult(t, run(t, byName["flood"], nil), true, "line longer than 1048576 bytes")
	wantResult(t, run(t, byName["echo"], map[string]any{"text": "ok"}), false, "ok")
}

func TestInitTimeout(t *testing.T) {
	s := newTestSource(t, "no-init", nil)
	s.initTimeout = 200 * time.Millisecond
	_, err := s.Load(context.Background())
	if err == nil || !strings.Contains(err.Error(), "did not answer init within 200ms") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadInit(t *testing.T) {
	tests := []struct{ mode, want string }{
		{"exit-on-init", `plugin tp exited during init: exited: exit status 2 (last stderr line: "cannot open database")`},
		{"garbage-init", `not a protocol message on stdout: "Hello! I am a plugin."`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			_, err := newTestSource(t, tt.mode, nil).Load(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMissingExecutable(t *testing.T) {
	s := NewSource(config.Plugin{Name: "gone", Path: "/nonexistent/plugin"}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	_, err := s.Load(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot start plugin gone (/nonexistent/plugin)") {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelAndTimeout(t *testing.T) {
	s := newTestSource(t, "ok", nil)
	byName := load(t, s)
	slow := byName["slow"]

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	got := slow.Run(ctx, tools.Call{ID: "c", Input: map[string]any{"ms": 5000}}, tools.Env{})
	if !got.Cancelled || !got.IsError {
		t.Errorf("cancelled call = %+v", got)
	}

	got = slow.Run(context.Background(), tools.Call{ID: "d", Input: map[string]any{"ms": 5000}}, tools.Env{DefaultTimeout: 1})
	wantResult(t, got, true, "plugin tp did not answer slow in time")
	wantResult(t, run(t, byName["echo"], map[string]any{"text": "alive"}), false, "alive")
}

func TestImageContent(t *testing.T) {
	s := newTestSource(t, "ok", nil)
	wantResult(t, run(t, load(t, s)["image"], nil), false, "a picture:\n[image: image/png, 12 bytes]")
}

func TestCloseStopsThePlugin(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	s := newTestSource(t, "ok", map[string]string{"TESTPLUGIN_STARTS": starts})
	echo := load(t, s)["echo"]
	pid := s.proc.cmd.Process.Pid
	s.Close()
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("plugin process %d still alive after Close", pid)
	}
	wantResult(t, run(t, echo, nil), true, "plugin tp is stopped")
	if _, err := s.Load(context.Background()); err == nil {
		t.Error("Load after Close succeeded")
	}
	time.Sleep(100 * time.Millisecond)
	if n := countLines(t, starts); n != 1 {
		t.Errorf("plugin started %d times, want 1 (no restart after Close)", n)
	}
}

func TestRestartFailureFailsFast(t *testing.T) {
	modeFile := filepath.Join(t.TempDir(), "mode")
	s := newTestSource(t, "ok", map[string]string{"TESTPLUGIN_MODE_FILE": modeFile})
	byName := load(t, s)
	setMode := func(mode string) {
		if err := os.WriteFile(modeFile, []byte(mode), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// From now on every restart dies during init.
	setMode("exit-on-init")
	wantResult(t, run(t, byName["crash"], nil), true, "died while running crash")
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := run(t, byName["echo"], nil)
		if strings.Contains(got.Text, "exited during init") {
			wantResult(t, got, true, "plugin tp is not running", "cannot open database", "chatls retries in")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("last result %q", got.Text)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A healthy binary again: the supervisor recovers on its own.
	setMode("ok")
	for run(t, byName["echo"], map[string]any{"text": "x"}).IsError {
		if time.Now().After(deadline) {
			t.Fatal("plugin never recovered")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBackoff(t *testing.T) {
	s := &Source{backoffMin: 100 * time.Millisecond, backoffMax: time.Second}
	want := []time.Duration{100, 100, 200, 400, 800, 1000, 1000}
	for crashes, w := range want {
		s.crashes = crashes
		if got := s.backoff(); got != w*time.Millisecond {
			t.Errorf("backoff after %d crashes = %s, want %s", crashes, got, w*time.Millisecond)
		}
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// A plugin whose first launch fails is retried with the restart backoff;
// its tools reach the registry through OnToolsChanged.
func TestFirstLoadFailureIsRetried(t *testing.T) {
	modeFile := filepath.Join(t.TempDir(), "mode")
	if err := os.WriteFile(modeFile, []byte("exit-on-init"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestSource(t, "ok", map[string]string{"TESTPLUGIN_MODE_FILE": modeFile})
	changed := make(chan []tools.Tool, 1)
	s.OnToolsChanged(func(list []tools.Tool) { changed <- list })
	_, err := s.Load(context.Background())
	if err == nil || !strings.Contains(err.Error(), "exited during init") || !strings.HasSuffix(err.Error(), "; chatls retries in the background") {
		t.Fatalf("first Load: %v", err)
	}
	// Asked again while retrying, it still reports the failure.
	if _, err := s.Load(context.Background()); err == nil {
		t.Error("second Load during the retries returned no error")
	}
	if err := os.WriteFile(modeFile, []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case list := <-changed:
		if len(list) != 6 || list[0].Definition().Name != "echo" {
			t.Errorf("tools after the retry: %d", len(list))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no retry succeeded")
	}
	wantResult(t, run(t, load(t, s)["echo"], map[string]any{"text": "late but here"}), false, "late but here")
}

// A missing path cannot fix itself: no retries.
func TestNoPathIsNotRetried(t *testing.T) {
	s := NewSource(config.Plugin{Name: "nopath"}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	_, err := s.Load(context.Background())
	if err == nil || err.Error() != "plugin nopath: no path configured" {
		t.Fatalf("err = %v", err)
	}
	if s.restartDone != nil {
		t.Error("a retry is scheduled for a plugin without a path")
	}
}
