package tools

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/procsup/proctest"
	"github.com/chatls/chatls/internal/testfs"
)

// requireSandbox skips, saying why, where bubblewrap cannot start (some
// containers forbid user namespaces). With CHATLS_REQUIRE_BWRAP=1 (set by
// .ci/run, which installs bubblewrap) it fails instead: there a sandbox test
// that does not run is a failure, not a skip.
func requireSandbox(t testing.TB) {
	t.Helper()
	if err := SandboxAvailable(""); err != nil {
		if os.Getenv("CHATLS_REQUIRE_BWRAP") == "1" {
			t.Fatalf("CHATLS_REQUIRE_BWRAP=1 but bubblewrap cannot start a sandbox: %v", err)
		}
		t.Skipf("sandbox tests need a working bubblewrap (apt install bubblewrap, as .ci/run does): %v", err)
	}
}

// TestProbeSandboxSeesChanges: SandboxAvailable remembers its answer,
// ProbeSandbox asks again (bubblewrap installed since) and updates it.
func TestProbeSandboxSeesChanges(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "bwrap")
	if err := SandboxAvailable(fake); err == nil || !strings.Contains(err.Error(), "bubblewrap not found") {
		t.Fatalf("missing: %v", err)
	}
	// A stand-in that runs what follows "--", as bwrap would.
	testfs.Write(t, fake, "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n")
	os.Chmod(fake, 0o755)
	if err := SandboxAvailable(fake); err == nil {
		t.Error("SandboxAvailable probed again; it should remember")
	}
	if err := ProbeSandbox(fake); err != nil {
		t.Fatalf("ProbeSandbox after install: %v", err)
	}
	if err := SandboxAvailable(fake); err != nil {
		t.Errorf("SandboxAvailable after ProbeSandbox: %v", err)
	}
	// And a broken one is reported with bubblewrap's own words.
	testfs.Write(t, fake, "#!/bin/sh\necho 'No permissions to create new namespace' >&2; exit 1\n")
	if err := ProbeSandbox(fake); err == nil || !strings.Contains(err.Error(), "bubblewrap cannot start a sandbox here: No permissions to create new namespace") {
		t.Errorf("broken: %v", err)
	}
}

// TestRequireBwrapFailsWithoutBubblewrap runs requireSandbox in a child test
// process with no bubblewrap on PATH: it must fail under
// CHATLS_REQUIRE_BWRAP=1 and skip without it.
func TestRequireBwrapFailsWithoutBubblewrap(t *testing.T) {
	if os.Getenv("CHATLS_TEST_REQUIRE_CHILD") == "1" {
		requireSandbox(t)
		return
	}
	for _, tc := range []struct{ require, want string }{{"1", "--- FAIL"}, {"", "--- SKIP"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRequireBwrapFailsWithoutBubblewrap$", "-test.v")
		cmd.Env = append(os.Environ(), "CHATLS_TEST_REQUIRE_CHILD=1", "PATH="+t.TempDir(), "CHATLS_REQUIRE_BWRAP="+tc.require)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("CHATLS_REQUIRE_BWRAP=%q: want %s in\n%s", tc.require, tc.want, out)
		}
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
	proctest.AwaitListed(t, 10*time.Second, marker, "after the timeout", func(n int) bool { return n == 0 })
}

// TestSandboxedBashDiesWithTheServer starts a mini server (this test
// binary, see main_test.go) running sandboxed bash with a background job,
// kills it, and checks that no process of the call survives it.
func TestSandboxedBashDiesWithTheServer(t *testing.T) {
	requireSandbox(t)
	marker := fmt.Sprintf("chatls-death-%d-sandboxed", os.Getpid())
	server := exec.Command(os.Args[0], "-test.run=^$")
	server.Env = append(os.Environ(), miniServerEnv+"="+marker)
	var stderr strings.Builder
	server.Stderr = &stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	// Both sleeps run: the background job and the main one.
	proctest.AwaitListed(t, 15*time.Second, marker, "start", func(n int) bool { return n == 2 })
	server.Process.Signal(syscall.SIGKILL)
	server.Wait()
	proctest.AwaitListed(t, 15*time.Second, marker, "after the server died", func(n int) bool { return n == 0 })
	if strings.Contains(stderr.String(), "the call ended") {
		t.Errorf("the call ended before the server was killed: %s", stderr.String())
	}
}
