package tools

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// requireSandbox skips, saying why, where bubblewrap cannot start (some
// containers forbid user namespaces); .ci/run installs it.
func requireSandbox(t *testing.T) {
	t.Helper()
	if err := SandboxAvailable(""); err != nil {
		t.Skipf("sandbox tests need a working bubblewrap: %v", err)
	}
}

func sandboxEnv(t *testing.T) Env {
	env := testEnv(t)
	env.Sandbox = SandboxConfig{Enabled: true}
	return env
}

func TestSandboxMissingBwrapRefusesToRun(t *testing.T) {
	env := sandboxEnv(t)
	env.Sandbox.Bwrap = "/nonexistent/bwrap"
	marker := filepath.Join(env.Dir, "ran")
	res := run(t, env, "bash", map[string]any{"command": "touch " + marker})
	if !res.IsError || !strings.HasPrefix(res.Text, "Sandbox unavailable, command not run: bubblewrap not found (/nonexistent/bwrap)") {
		t.Errorf("got %q", res.Text)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without a sandbox")
	}
	if err := SandboxAvailable("/nonexistent/bwrap"); err == nil {
		t.Error("SandboxAvailable of a missing binary = nil")
	}
}

func TestSandboxedBashWritesOnlyTheWritableSet(t *testing.T) {
	requireSandbox(t)
	env := sandboxEnv(t)
	outside := t.TempDir()
	home, _ := os.UserHomeDir()
	script := fmt.Sprintf(`echo in > inside.txt && echo inside-ok
{ echo x > %[1]s/escape.txt; } 2>/dev/null || echo outside-refused
{ echo x > /etc/chatls-escape; } 2>/dev/null || echo etc-refused
{ echo x > %[2]s/.chatls-escape; } 2>/dev/null || echo home-refused
ln -s %[1]s link && { { echo x > link/via-link.txt; } 2>/dev/null || echo link-refused; }`, outside, home)
	res := run(t, env, "bash", map[string]any{"command": script})
	wantText(t, res, "inside-ok\noutside-refused\netc-refused\nhome-refused\nlink-refused")
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote outside: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(env.Dir, "inside.txt")); string(b) != "in\n" {
		t.Errorf("inside.txt = %q", b)
	}
	// sandbox.writable adds directories.
	env.Sandbox.Writable = []string{outside}
	res = run(t, env, "bash", map[string]any{"command": "echo y > " + outside + "/allowed.txt && echo ok"})
	wantText(t, res, "ok")
}

func TestSandboxIsolatesPidsAndNetwork(t *testing.T) {
	requireSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	probe := fmt.Sprintf(`kill -0 %d 2>/dev/null && echo sees-server || echo pid-isolated
(exec 3<>/dev/tcp/127.0.0.1/%d && head -1 <&3) 2>/dev/null || echo no-network`, os.Getpid(), port)

	env := sandboxEnv(t)
	wantText(t, run(t, env, "bash", map[string]any{"command": probe}), "pid-isolated\nno-network")
	env.Sandbox.Network = true
	wantText(t, run(t, env, "bash", map[string]any{"command": probe}), "pid-isolated\nhello")
}

func TestSandboxTimeoutLeavesNoProcess(t *testing.T) {
	requireSandbox(t)
	env := sandboxEnv(t)
	marker := fmt.Sprintf("chatls-sbx-%d", os.Getpid())
	res := run(t, env, "bash", map[string]any{
		"command": fmt.Sprintf("(exec -a %[1]s sleep 100) & (exec -a %[1]s sleep 100 &) ; exec -a %[1]s sleep 100", marker),
		"timeout": 1,
	})
	if !strings.HasSuffix(res.Text, "Command timed out after 1 seconds.") {
		t.Errorf("got %q", res.Text)
	}
	waitUntil(t, func() bool { return len(processesWithArg(marker)) == 0 })
}

// processesWithArg lists live processes whose argv[0] is arg.
func processesWithArg(arg string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if argv0, _, _ := bytes.Cut(cmdline, []byte{0}); string(argv0) == arg {
			found = append(found, e.Name())
		}
	}
	return found
}
