package e2e

// Misbehaving plugins and stdio MCP servers through the real server: what a
// user sees in the document, and which processes are left afterwards.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/internal/procsup/proctest"
)

// buildProgram builds a test program of this module (a plugin, an MCP
// server) into the test's temp directory.
func buildProgram(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// settingsOptions starts a server with these settings as initializationOptions.
func settingsOptions(settings map[string]any) sessionOptions {
	return sessionOptions{Options: lspclient.Options{InitializationOptions: settings}}
}

// runCall has the model call tool with input in a new document, advances it
// (the settings approve it) and returns the result block the server writes.
func (s *session) runCall(tool, id, input string) string {
	s.t.Helper()
	uri := s.open(id+".chat", "@You:\ngo\n\n@Assistant:\n**Tool Use:** `"+tool+"` (`"+id+"`)\n\n```json\n"+input+"\n```\n")
	s.advance(uri)
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
	testPlugin := buildProgram(t, "github.com/chatls/chatls/tools/plugin/testdata/testplugin")
	s := start(t, settingsOptions(map[string]any{"tools": map[string]any{
		"plugins": []any{
			map[string]any{"name": "tp", "path": testPlugin},
			map[string]any{"name": "mute", "path": testPlugin, "args": []string{"no-init"}},
		},
		"defaultTimeout": 3,
		"autoApprove":    []string{"$default", "echo", "crash", "garbage", "flood"},
	}}))
	tests := []struct{ tool, want string }{
		{"crash", `plugin tp died while running crash: exited: exit status 3 (last stderr line: "panic: runtime error: index out of range"); chatls restarts it`},
		{"garbage", `plugin tp died while running garbage: printed something that is not a protocol message on stdout: "DEBUG: starting work on toolu_garbage" (logs belong on stderr) (last stderr line: "testplugin starting in mode ok"); chatls restarts it`},
		{"flood", `plugin tp died while running flood: wrote a line longer than 4194304 bytes on stdout (last stderr line: "testplugin starting in mode ok"); chatls restarts it`},
	}
	for i, tt := range tests {
		got := s.runCall(tt.tool, "toolu_"+tt.tool, "{}")
		wantIn(t, got, "**Tool Result:** `toolu_"+tt.tool+"` (error)\n\n```\n"+tt.want+"\n```")
		// The plugin is restarted for the next call.
		again := s.runCall("echo", "toolu_echo"+strconv.Itoa(i), `{"text":"back after `+tt.tool+`"}`)
		wantIn(t, again, "back after "+tt.tool)
	}
	if kb := peakRSS(t, s.c.Process().Process.Pid); kb > 200<<10 {
		t.Errorf("chatls peaked at %d KiB after the flood", kb)
	}
	// The plugin that never answers init: its source fails with one clear message.
	uri := s.open("diag.chat", "@You:\nhi\n")
	const mute = `tool source plugin:mute failed: plugin mute did not answer init within 3s; check that it reads {"type":"init"} lines on stdin and answers on stdout; chatls retries in the background`
	if d := s.waitDiagnostic(uri, mute); d.Message != mute {
		t.Errorf("diagnostic %q, want exactly %q", d.Message, mute)
	}
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
	mcpServer := buildProgram(t, "github.com/chatls/chatls/tools/mcp/testdata/stdioserver")
	polite, politePids := spawner(t, false)
	stubborn, stubbornPids := spawner(t, true)
	mcpChildren := filepath.Join(t.TempDir(), "mcp-children")
	s := start(t, settingsOptions(map[string]any{"tools": map[string]any{
		"plugins": []any{
			map[string]any{"name": "polite", "path": polite, "env": map[string]string{"PIDFILE": politePids}},
			map[string]any{"name": "stubborn", "path": stubborn, "env": map[string]string{"PIDFILE": stubbornPids}},
		},
		"mcpServers": map[string]any{"local": map[string]any{"command": mcpServer, "env": map[string]string{"SPAWN_PIDFILE": mcpChildren}}},
	}}))
	s.open("a.chat", "@You:\nhi\n")
	running := append(append(pids(t, politePids), pids(t, stubbornPids)...), pids(t, mcpChildren)...)
	mcpServers := proctest.PidsOf(mcpServer)
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

// chatls killed with SIGKILL: the plugins and the stdio MCP server die with
// everything they started, even a plugin that ignores EOF on stdin.
func TestServerKilledLeavesNoPlugins(t *testing.T) {
	proctest.Skip(t)
	mcpServer := buildProgram(t, "github.com/chatls/chatls/tools/mcp/testdata/stdioserver")
	stubborn, stubbornPids := spawner(t, true)
	s := start(t, settingsOptions(map[string]any{"tools": map[string]any{
		"plugins":    []any{map[string]any{"name": "stubborn", "path": stubborn, "env": map[string]string{"PIDFILE": stubbornPids}}},
		"mcpServers": map[string]any{"local": map[string]any{"command": mcpServer}},
	}}))
	s.open("a.chat", "@You:\nhi\n")
	plugin := pids(t, stubbornPids)
	var mcpServers []int
	deadline := time.Now().Add(10 * time.Second)
	for len(mcpServers) == 0 && time.Now().Before(deadline) {
		mcpServers = proctest.PidsOf(mcpServer)
		time.Sleep(10 * time.Millisecond)
	}
	if len(mcpServers) == 0 {
		t.Fatal("the stdio MCP server is not running")
	}
	if err := s.c.Process().Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The plugin, its own background job and the MCP server: all run under
	// a supervisor that ends the whole tree when chatls is gone.
	proctest.AwaitGone(t, 5*time.Second, append(plugin, mcpServers...)...)
}
