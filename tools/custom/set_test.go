package custom

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/procsup/proctest"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
	"go.uber.org/zap/zaptest"
)

func newSet(t *testing.T) (*Set, *tools.Registry) {
	t.Helper()
	reg := tools.NewRegistry(builtin.Tools(builtin.Options{}))
	set := NewSet(reg, zaptest.NewLogger(t))
	t.Cleanup(func() { set.Close() })
	return set, reg
}

func waitReady(t *testing.T, reg *tools.Registry) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := reg.WaitReady(ctx); err != nil {
		t.Fatalf("registry not ready: %v", err)
	}
}

func known(reg *tools.Registry, name string) bool {
	_, ok := reg.Lookup(name)
	return ok
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	return strings.Split(proctest.AwaitFile(t, path, 10*time.Second), "\n")
}

// Reconcile keeps an unchanged source's process, restarts a changed one,
// stops a removed one (its tools leave the registry at once, its processes
// die) and starts a new one.
func TestReconcile(t *testing.T) {
	proctest.Skip(t)
	dir := t.TempDir()
	tpStarts, mcpChildren := filepath.Join(dir, "tp-starts"), filepath.Join(dir, "mcp-children")
	set, reg := newSet(t)
	wc := config.Plugin{Name: "wc", Path: wordcountBin}
	tp := config.Plugin{Name: "tp", Path: testPluginBin, Args: []string{"echo-only"}, Env: map[string]string{"TESTPLUGIN_STARTS": tpStarts}}
	local := config.MCPServer{Command: mcpBin, Env: map[string]string{"SPAWN_PIDFILE": mcpChildren}}

	ch := set.Reconcile(Config{Plugins: []config.Plugin{wc, tp}, MCPServers: map[string]config.MCPServer{"local": local}, Timeout: 10 * time.Second})
	if got := strings.Join(ch.Started, " "); got != "plugin:wc plugin:tp mcp:local" || ch.Restarted != nil || ch.Stopped != nil {
		t.Errorf("first Reconcile = %+v", ch)
	}
	waitReady(t, reg)
	for _, name := range []string{"wordcount", "echo", "local:echo"} {
		if !known(reg, name) {
			t.Fatalf("%s not registered: %v", name, reg.SourceErrors())
		}
	}
	wcPids := proctest.PidsOf(wordcountBin)
	mcpPids := proctest.PidsOf(mcpBin)
	tpFirst := proctest.Pid(t, lines(t, tpStarts)[0])
	mcpChild := proctest.Pid(t, lines(t, mcpChildren)[0])
	if len(wcPids) != 1 || len(mcpPids) != 1 {
		t.Fatalf("wordcount pids %v, stdioserver pids %v", wcPids, mcpPids)
	}

	// Same wc, tp with a new environment, no MCP server.
	tp.Env = map[string]string{"TESTPLUGIN_STARTS": tpStarts, "EXTRA": "1"}
	ch = set.Reconcile(Config{Plugins: []config.Plugin{wc, tp}, Timeout: 10 * time.Second})
	if !slices.Equal(ch.Unchanged, []string{"plugin:wc"}) || !slices.Equal(ch.Restarted, []string{"plugin:tp"}) || !slices.Equal(ch.Stopped, []string{"mcp:local"}) || ch.Started != nil {
		t.Errorf("second Reconcile = %+v", ch)
	}
	if known(reg, "local:echo") {
		t.Error("a removed MCP server's tools are still registered")
	}
	waitReady(t, reg)
	if !known(reg, "echo") || !known(reg, "wordcount") {
		t.Fatalf("tools after the restart: %v", reg.SourceErrors())
	}
	if got := proctest.PidsOf(wordcountBin); !slices.Equal(got, wcPids) {
		t.Errorf("unchanged wordcount was restarted: pids %v, before %v", got, wcPids)
	}
	if n := len(lines(t, tpStarts)); n != 2 {
		t.Errorf("tp started %d times, want 2", n)
	}
	proctest.AwaitGone(t, 5*time.Second, tpFirst, mcpPids[0], mcpChild)
	echo, _ := reg.Lookup("echo")
	if res := echo.Run(context.Background(), tools.Call{ID: "t", Name: "echo", Input: map[string]any{"text": "new"}}, tools.Env{}); res.IsError || res.Text != "new" {
		t.Errorf("echo after the restart = %+v", res)
	}

	// The MCP server comes back.
	ch = set.Reconcile(Config{Plugins: []config.Plugin{wc, tp}, MCPServers: map[string]config.MCPServer{"local": local}, Timeout: 10 * time.Second})
	if !slices.Equal(ch.Started, []string{"mcp:local"}) || len(ch.Unchanged) != 2 {
		t.Errorf("third Reconcile = %+v", ch)
	}
	waitReady(t, reg)
	if !known(reg, "local:echo") {
		t.Errorf("local:echo not back: %v", reg.SourceErrors())
	}
	if errs := reg.SourceErrors(); len(errs) != 0 {
		t.Errorf("SourceErrors = %v", errs)
	}

	all := append(append(proctest.PidsOf(wordcountBin), proctest.PidsOf(testPluginBin)...), proctest.PidsOf(mcpBin)...)
	if err := set.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	proctest.AwaitGone(t, 5*time.Second, all...)
	if ch := set.Reconcile(Config{Plugins: []config.Plugin{wc}}); ch.Started != nil {
		t.Errorf("Reconcile after Close started %v", ch.Started)
	}
}

// fifoPlugin is a plugin that answers init only once release is written.
func fifoPlugin(t *testing.T) (path string, release func()) {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "slow-plugin")
	script := "#!/bin/bash\nread -r line\nread -r _ < " + fifo + "\n" +
		`echo '{"type":"init","tools":[{"name":"slowtool"}]}'` + "\nwhile read -r line; do :; done\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			// Opening a FIFO for writing waits for its reader: the plugin.
			go func() {
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.WriteString("go\n")
					f.Close()
				}
			}()
		})
	}
	t.Cleanup(func() {
		// A reader of our own lets a writer still waiting (the plugin was
		// replaced before it read) finish.
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return path, release
}

// MayProvide answers whether a name could still come from a loading
// source; WaitFor waits for exactly that.
func TestMayProvideAndWaitFor(t *testing.T) {
	path, release := fifoPlugin(t)
	set, reg := newSet(t)
	dir := t.TempDir()
	mute := filepath.Join(dir, "mute-mcp")
	if err := os.WriteFile(mute, []byte("#!/bin/bash\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	changes := make(chan struct{}, 16)
	set.OnChange(func() { changes <- struct{}{} })
	set.Reconcile(Config{Plugins: []config.Plugin{{Name: "slow", Path: path}}, MCPServers: map[string]config.MCPServer{"mute": {Command: mute}}, Timeout: 20 * time.Second})

	for name, want := range map[string]bool{
		"slowtool":  true,  // a plugin may declare any name
		"mute:x":    true,  // the MCP server mute is loading
		"other:x":   true,  // ... and so is a plugin
		"read":      false, // a built-in is known
		"":          true,
		"bash":      false,
		"wordcount": true,
	} {
		if got := set.MayProvide(name); got != want {
			t.Errorf("MayProvide(%q) = %v while loading, want %v", name, got, want)
		}
	}
	if !set.Loading() {
		t.Error("Loading() = false while loading")
	}
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := set.WaitFor(short, "slowtool"); err == nil {
		t.Fatal("WaitFor returned before the plugin answered init")
	}
	if err := set.WaitFor(context.Background(), "read", "calculator"); err != nil {
		t.Errorf("WaitFor(built-ins) = %v", err)
	}

	release()
	ctx, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if err := set.WaitFor(ctx, "slowtool"); err != nil {
		t.Fatalf("WaitFor after init: %v", err)
	}
	if !known(reg, "slowtool") {
		t.Error("WaitFor returned before slowtool was registered")
	}
	// The plugin is done; only the MCP server can still provide mute:*.
	if set.MayProvide("other:x") || set.MayProvide("nosuchtool") || !set.MayProvide("mute:x") {
		t.Errorf("after the plugin loaded: other:x %v, nosuchtool %v, mute:x %v",
			set.MayProvide("other:x"), set.MayProvide("nosuchtool"), set.MayProvide("mute:x"))
	}
	select {
	case <-changes:
	default:
		t.Error("OnChange listeners were not called")
	}
	// Removing the MCP server ends its wait at once.
	set.Reconcile(Config{Plugins: []config.Plugin{{Name: "slow", Path: path}}, Timeout: 20 * time.Second})
	if set.MayProvide("mute:x") || set.Loading() {
		t.Errorf("after removing mute: MayProvide(mute:x) %v, Loading %v", set.MayProvide("mute:x"), set.Loading())
	}
}

// A source that does not load within the timeout stops being awaited, and
// its error says what went wrong, once.
func TestLoadTimeoutMessage(t *testing.T) {
	set, reg := newSet(t)
	dir := t.TempDir()
	muteMCP := filepath.Join(dir, "mute-mcp")
	if err := os.WriteFile(muteMCP, []byte("#!/bin/bash\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	set.Reconcile(Config{
		Plugins:    []config.Plugin{{Name: "mute", Path: testPluginBin, Args: []string{"no-init"}}},
		MCPServers: map[string]config.MCPServer{"quiet": {Command: muteMCP}},
		Timeout:    time.Second,
	})
	start := time.Now()
	if err := set.WaitFor(context.Background(), "echo", "quiet:x"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("waited %s for a 1 s timeout", d)
	}
	waitReady(t, reg)
	err := reg.SourceErrors()["plugin:mute"]
	want := `plugin mute did not answer init within 1s; check that it reads {"type":"init"} lines on stdin and answers on stdout; chatls retries in the background`
	if err == nil || err.Error() != want {
		t.Errorf("SourceErrors[plugin:mute] = %v\nwant %s", err, want)
	}
	err = reg.SourceErrors()["mcp:quiet"]
	want = "MCP server quiet did not answer initialize within 1s; chatls retries in the background"
	if err == nil || err.Error() != want {
		t.Errorf("SourceErrors[mcp:quiet] = %v\nwant %s", err, want)
	}
}

// Changing a source while it still loads: the registry ends up with the new
// configuration's tools, never the old one's, and the old process is gone.
func TestReconcileWhileLoading(t *testing.T) {
	proctest.Skip(t)
	slow, release := fifoPlugin(t)
	defer release()
	set, reg := newSet(t)
	set.Reconcile(Config{Plugins: []config.Plugin{{Name: "p", Path: slow}}, Timeout: 20 * time.Second})
	var slowPids []int
	deadline := time.Now().Add(10 * time.Second)
	for len(slowPids) == 0 && time.Now().Before(deadline) {
		slowPids = proctest.Descendants(os.Getpid())
		time.Sleep(10 * time.Millisecond)
	}
	ch := set.Reconcile(Config{Plugins: []config.Plugin{{Name: "p", Path: testPluginBin, Args: []string{"echo-only"}}}, Timeout: 20 * time.Second})
	if !slices.Equal(ch.Restarted, []string{"plugin:p"}) {
		t.Errorf("Reconcile = %+v", ch)
	}
	waitReady(t, reg)
	if !known(reg, "echo") || known(reg, "slowtool") {
		t.Errorf("echo %v, slowtool %v: %v", known(reg, "echo"), known(reg, "slowtool"), reg.SourceErrors())
	}
	if errs := reg.SourceErrors(); len(errs) != 0 {
		t.Errorf("SourceErrors = %v", errs)
	}
	proctest.AwaitGone(t, 5*time.Second, slowPids...)
}

// A plugin that is missing at first shows up once it exists.
func TestFirstLoadFailureRecoversIntoTheRegistry(t *testing.T) {
	later := filepath.Join(t.TempDir(), "plugin")
	set, reg := newSet(t)
	set.Reconcile(Config{Plugins: []config.Plugin{{Name: "late", Path: later}}, Timeout: 5 * time.Second})
	waitReady(t, reg)
	if err := reg.SourceErrors()["plugin:late"]; err == nil || !strings.Contains(err.Error(), "chatls retries in the background") {
		t.Fatalf("SourceErrors = %v", reg.SourceErrors())
	}
	arrived := make(chan struct{})
	var once sync.Once
	reg.OnChange(func() {
		if known(reg, "wordcount") {
			once.Do(func() { close(arrived) })
		}
	})
	data, err := os.ReadFile(wordcountBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(later, data, 0o755); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the plugin's tools never arrived")
	}
	if errs := reg.SourceErrors(); len(errs) != 0 {
		t.Errorf("SourceErrors after recovery = %v", errs)
	}
}

func TestConfigFrom(t *testing.T) {
	five := 5
	user := config.Settings{Tools: config.Tools{
		DefaultTimeout: &five,
		Plugins:        []config.Plugin{{Name: "a", Path: "/a"}, {Name: "b", Path: "/b"}},
		MCPServers:     map[string]config.MCPServer{"m": {Command: "m1"}, "n": {Command: "n1"}},
	}}
	ws := config.Settings{Tools: config.Tools{
		Plugins:    []config.Plugin{{Name: "b", Path: "/ws/b"}, {Name: "c", Path: "/ws/c"}},
		MCPServers: map[string]config.MCPServer{"n": {URL: "http://n"}},
	}}
	got := ConfigFrom(user, ws)
	var plugins []string
	for _, p := range got.Plugins {
		plugins = append(plugins, p.Name+"="+p.Path)
	}
	if strings.Join(plugins, " ") != "a=/a b=/ws/b c=/ws/c" {
		t.Errorf("plugins = %v", plugins)
	}
	if len(got.MCPServers) != 2 || got.MCPServers["m"].Command != "m1" || got.MCPServers["n"].URL != "http://n" {
		t.Errorf("mcpServers = %+v", got.MCPServers)
	}
	if got.Timeout != 5*time.Second {
		t.Errorf("timeout = %s", got.Timeout)
	}
	if !ConfigFrom(config.Settings{}).Empty() || got.Empty() {
		t.Error("Empty is wrong")
	}
}
