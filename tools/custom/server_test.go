package custom

// Misbehaving plugins and stdio MCP servers driven through the real chatls
// binary over stdio, with the scripted editor of internal/lspclient: what a
// user sees in the document, and which processes are left afterwards.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/tools/plugin/procgroup/proctest"
)

var (
	chatlsOnce sync.Once
	chatlsBin  string
	chatlsErr  error
)

// chatls builds the server binary once for this package's tests.
func chatls(t *testing.T) string {
	t.Helper()
	chatlsOnce.Do(func() {
		chatlsBin = filepath.Join(filepath.Dir(testPluginBin), "chatls")
		if out, err := exec.Command("go", "build", "-o", chatlsBin, "github.com/chatls/chatls/cmd/chatls").CombinedOutput(); err != nil {
			chatlsErr = fmt.Errorf("go build chatls: %v\n%s", err, out)
		}
	})
	if chatlsErr != nil {
		t.Fatal(chatlsErr)
	}
	return chatlsBin
}

type server struct {
	t   *testing.T
	c   *lspclient.Client
	ws  string
	ctx context.Context
}

// serve starts chatls with these settings as initializationOptions.
func serve(t *testing.T, settings map[string]any) *server {
	t.Helper()
	bin := chatls(t)
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(base, "state"), "XDG_CONFIG_HOME="+filepath.Join(base, "config"), "TMPDIR="+base)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c, err := lspclient.Start(ctx, bin, []string{"--log-level", "debug"}, env, lspclient.Options{InitializationOptions: settings, RootDir: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Shutdown(sctx)
		if t.Failed() {
			t.Logf("server stderr (tail):\n%s", c.Stderr())
		}
	})
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	return &server{t: t, c: c, ws: ws, ctx: ctx}
}

func (s *server) open(name, text string) string {
	s.t.Helper()
	path := filepath.Join(s.ws, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		s.t.Fatal(err)
	}
	uri := lspclient.PathURI(path)
	if err := s.c.Open(s.ctx, uri, text); err != nil {
		s.t.Fatal(err)
	}
	return uri
}

// run has the model call tool with input and returns the result block the
// server writes (auto-approved by the settings).
func (s *server) run(tool, id, input string) string {
	s.t.Helper()
	uri := s.open(id+".chat", "@You:\ngo\n\n@Assistant:\n**Tool Use:** `"+tool+"` (`"+id+"`)\n\n```json\n"+input+"\n```\n")
	var out map[string]any
	if err := s.c.Call(s.ctx, "workspace/executeCommand", map[string]any{"command": "chatls.advance", "arguments": []any{map[string]any{"uri": uri}}}, &out); err != nil {
		s.t.Fatalf("chatls.advance: %v", err)
	}
	head := "**Tool Result:** `" + id + "`"
	var result string
	err := s.c.WaitFor(30*time.Second, "the result of "+id, func(st *lspclient.State) bool {
		text := st.Text(uri)
		i := strings.Index(text, head)
		if i < 0 || strings.Contains(text[i:], "status=pending") || strings.Contains(text[i:], "status=approved") || strings.Count(text[i:], "```") < 2 {
			return false
		}
		result = text[i:]
		return true
	})
	if err != nil {
		s.t.Fatalf("%v\n--- document:\n%s", err, s.c.Doc(uri).Text)
	}
	return result
}

func (s *server) waitDiagnostic(uri, message string) {
	s.t.Helper()
	err := s.c.WaitFor(20*time.Second, "diagnostic "+message, func(st *lspclient.State) bool {
		for _, d := range st.Diagnostics(uri) {
			if d.Message == message {
				return true
			}
		}
		return false
	})
	if err != nil {
		s.t.Fatalf("%v; have %+v", err, s.c.Diagnostics(uri))
	}
}

func wantIn(t *testing.T, text string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(text, sub) {
			t.Errorf("%q not in\n%s", sub, text)
		}
	}
}

// peakRSS is the high-water mark of a process's resident memory in KiB.
func peakRSS(t *testing.T, pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// The four ways a plugin can misbehave, through the server: each costs one
// call (or the plugin's tools), says why in the document, and the plugin is
// back for the next call; memory stays bounded.
func TestServerBadPlugins(t *testing.T) {
	proctest.Skip(t)
	s := serve(t, map[string]any{"tools": map[string]any{
		"plugins": []any{
			map[string]any{"name": "tp", "path": testPluginBin},
			map[string]any{"name": "mute", "path": testPluginBin, "args": []string{"no-init"}},
		},
		"defaultTimeout": 3,
		"autoApprove":    []string{"$default", "echo", "crash", "garbage", "flood"},
	}})
	tests := []struct{ tool, want string }{
		{"crash", `plugin tp died while running crash: exited: exit status 3 (last stderr line: "panic: runtime error: index out of range"); chatls restarts it`},
		{"garbage", `plugin tp died while running garbage: printed something that is not a protocol message on stdout: "DEBUG: starting work on toolu_garbage" (logs belong on stderr) (last stderr line: "testplugin starting in mode ok"); chatls restarts it`},
		{"flood", `plugin tp died while running flood: wrote a line longer than 4194304 bytes on stdout (last stderr line: "testplugin starting in mode ok"); chatls restarts it`},
	}
	for i, tt := range tests {
		got := s.run(tt.tool, "toolu_"+tt.tool, "{}")
		wantIn(t, got, "**Tool Result:** `toolu_"+tt.tool+"` (error)\n\n```\n"+tt.want+"\n```")
		// The plugin is restarted for the next call.
		again := s.run("echo", "toolu_echo"+strconv.Itoa(i), `{"text":"back after `+tt.tool+`"}`)
		wantIn(t, again, "back after "+tt.tool)
	}
	if kb := peakRSS(t, s.c.Process().Process.Pid); kb > 200<<10 {
		t.Errorf("chatls peaked at %d KiB after the flood", kb)
	}
	// The plugin that never answers init: its source fails with one clear message.
	uri := s.open("diag.chat", "@You:\nhi\n")
	s.waitDiagnostic(uri, `tool source plugin:mute failed: plugin mute did not answer init within 3s; check that it reads {"type":"init"} lines on stdin and answers on stdout; chatls retries in the background`)
}

// spawner is a plugin script that starts a background job, appends its own
// pid and the job's to $PIDFILE, and exits on EOF — or, with ignoreEOF,
// keeps running.
func spawner(t *testing.T, ignoreEOF bool) (path, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	path, pidFile = filepath.Join(dir, "spawner"), filepath.Join(dir, "pids")
	loop := "while read -r line; do :; done\n"
	if ignoreEOF {
		loop = "while true; do read -r line || sleep 1; done\n"
	}
	script := "#!/bin/bash\nsleep 300 >/dev/null 2>&1 &\necho $$ $! >> \"$PIDFILE\"\nread -r line\n" +
		`echo '{"type":"init","tools":[{"name":"noop"}]}'` + "\n" + loop
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, pidFile
}

func pids(t *testing.T, pidFile string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Fields(proctest.AwaitFile(t, pidFile, 10*time.Second)) {
		out = append(out, proctest.Pid(t, f))
	}
	return out
}

// After a clean shutdown nothing a plugin or a stdio MCP server started is
// running: neither the processes nor their background jobs.
func TestServerShutdownLeavesNoProcesses(t *testing.T) {
	proctest.Skip(t)
	polite, politePids := spawner(t, false)
	stubborn, stubbornPids := spawner(t, true)
	mcpChildren := filepath.Join(t.TempDir(), "mcp-children")
	s := serve(t, map[string]any{"tools": map[string]any{
		"plugins": []any{
			map[string]any{"name": "polite", "path": polite, "env": map[string]string{"PIDFILE": politePids}},
			map[string]any{"name": "stubborn", "path": stubborn, "env": map[string]string{"PIDFILE": stubbornPids}},
		},
		"mcpServers": map[string]any{"local": map[string]any{"command": mcpBin, "env": map[string]string{"SPAWN_PIDFILE": mcpChildren}}},
	}})
	s.open("a.chat", "@You:\nhi\n")
	running := append(append(pids(t, politePids), pids(t, stubbornPids)...), pids(t, mcpChildren)...)
	mcpServers := proctest.PidsOf(mcpBin)
	if len(mcpServers) == 0 {
		t.Fatal("the stdio MCP server is not running")
	}
	running = append(running, mcpServers...)
	for _, p := range running {
		if !proctest.Alive(p) {
			t.Fatalf("process %d is not running before the shutdown", p)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.c.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	proctest.AwaitGone(t, 5*time.Second, running...)
}

// chatls killed with SIGKILL: the plugins and the stdio MCP server still die
// (parent-death signal), even one that ignores EOF on stdin. Their own
// background jobs are not covered (docs/custom-tools.md says so).
func TestServerKilledLeavesNoPlugins(t *testing.T) {
	proctest.Skip(t)
	stubborn, stubbornPids := spawner(t, true)
	s := serve(t, map[string]any{"tools": map[string]any{
		"plugins":    []any{map[string]any{"name": "stubborn", "path": stubborn, "env": map[string]string{"PIDFILE": stubbornPids}}},
		"mcpServers": map[string]any{"local": map[string]any{"command": mcpBin}},
	}})
	s.open("a.chat", "@You:\nhi\n")
	plugin := pids(t, stubbornPids)
	var mcpServers []int
	deadline := time.Now().Add(10 * time.Second)
	for len(mcpServers) == 0 && time.Now().Before(deadline) {
		mcpServers = proctest.PidsOf(mcpBin)
		time.Sleep(10 * time.Millisecond)
	}
	if len(mcpServers) == 0 {
		t.Fatal("the stdio MCP server is not running")
	}
	if err := s.c.Process().Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	proctest.AwaitGone(t, 5*time.Second, append([]int{plugin[0]}, mcpServers...)...)
	// Not ours to leave behind in the test run either.
	syscall.Kill(-plugin[0], syscall.SIGKILL)
	syscall.Kill(plugin[1], syscall.SIGKILL)
}
