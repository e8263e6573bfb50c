package builtin

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/procsup/proctest"
	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/internal/tooltest"
	"github.com/chatls/chatls/tools"
)

// requireSandbox skips or fails t where bubblewrap cannot start.
func requireSandbox(t testing.TB) {
	t.Helper()
	tooltest.RequireSandbox(t, tools.SandboxAvailable(""))
}

func sandboxEnv(t *testing.T) tools.Env {
	env := testEnv(t)
	env.Sandbox = tools.SandboxConfig{Enabled: true}
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
	if err := tools.SandboxAvailable("/nonexistent/bwrap"); err == nil {
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

// Inside the sandbox, secrets are empty by name and by inode, the
// environment is the allowlist (also bubblewrap's own, at /proc/1/environ),
// .git stays read-only, and a refused write says so (SPEC §5).
func TestSandboxMasksSecretsAndClearsTheEnvironment(t *testing.T) {
	requireSandbox(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GITHUB_TOKEN", "canary-env-token")
	t.Setenv("CHATLS_TEST_KEEP", "kept-by-sandbox-env")
	env := sandboxEnv(t)
	env.Sandbox.Env = []string{"CHATLS_TEST_KEEP"}
	ws := env.Dir
	testfs.Write(t, filepath.Join(ws, ".env"), "canary-dotenv\n")
	testfs.Write(t, filepath.Join(ws, "sub", "aws_credentials.json"), "canary-credentials\n")
	testfs.Write(t, filepath.Join(home, ".ssh", "id_rsa"), "canary-ssh-key\n")
	testfs.Write(t, filepath.Join(home, ".bashrc"), "canary-bashrc\n")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	testfs.Write(t, outside, "canary-outside-linked\n")
	if err := os.Link(outside, filepath.Join(ws, "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(ws, ".env"), filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, filepath.Join(ws, "plain.txt"), "visible\n")
	testfs.Write(t, filepath.Join(ws, "repo", ".git", "config"), "[core]\n")
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(ws, "key-link")); err != nil {
		t.Fatal(err)
	}

	script := `umount .env 2>/dev/null; umount -l ~/.ssh 2>/dev/null; cat .env sub/aws_credentials.json ~/.ssh/id_rsa ~/.bashrc innocent.txt notes.txt key-link plain.txt 2>&1
env; tr '\0' '\n' < /proc/1/environ; tr '\0' '\n' < /proc/self/environ
echo hook > repo/.git/hooks-x; echo x >> innocent.txt; echo done`
	res := run(t, env, "bash", map[string]any{"command": script})
	for _, canary := range []string{"canary-dotenv", "canary-credentials", "canary-ssh-key", "canary-bashrc", "canary-outside-linked", "canary-env-token"} {
		if strings.Contains(res.Text, canary) {
			t.Errorf("%s reached the result:\n%s", canary, res.Text)
		}
	}
	for _, want := range []string{"visible", "CHATLS_TEST_KEEP=kept-by-sandbox-env", "PAGER=cat", "HOME=" + home, "done",
		"[sandbox: write to repo/.git/hooks-x refused]"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("want %q in:\n%s", want, res.Text)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "canary-outside-linked\n" {
		t.Errorf("the file outside changed through its hard link: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "repo", ".git", "hooks-x")); err == nil {
		t.Error("bash wrote into .git")
	}
}

// A call the user approved with sandbox=off runs outside (its writes land,
// the environment is chatls's) but without network unless network=on too;
// network=on alone opens the network inside.
func TestSandboxEscapes(t *testing.T) {
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
	t.Setenv("CHATLS_TEST_OUTSIDE", "host-env")
	outside := filepath.Join(t.TempDir(), "written-outside")
	probe := fmt.Sprintf(`echo "env:$CHATLS_TEST_OUTSIDE"; { echo x > %s; } 2>/dev/null && echo wrote; (exec 3<>/dev/tcp/127.0.0.1/%d && head -1 <&3) 2>/dev/null || echo no-network`, outside, port)
	env := sandboxEnv(t)
	wantText(t, run(t, env, "bash", map[string]any{"command": probe}), "env:\nno-network")
	env.Sandbox.Network = true
	wantText(t, run(t, env, "bash", map[string]any{"command": probe}), "env:\nhello")
	env.Sandbox.Network, env.Sandbox.Outside = false, true
	wantText(t, run(t, env, "bash", map[string]any{"command": probe}), "env:host-env\nwrote\nno-network")
	env.Sandbox.Network = true
	wantText(t, run(t, env, "bash", map[string]any{"command": probe}), "env:host-env\nwrote\nhello")
}

// BenchmarkSandboxCost runs the same bash command through the runner with
// and without the sandbox, interleaved (plain, sandboxed, plain, …, so load
// on a busy machine falls on both alike), in a workspace of 500 files with a
// .git and a few secrets to mask, and reports each side's min, median and
// max per call and the median difference:
//
//	go test ./tools/builtin -run '^$' -bench SandboxCost -benchtime 200x
func BenchmarkSandboxCost(b *testing.B) {
	requireSandbox(b)
	for _, command := range []string{"true", "echo hi"} {
		b.Run(command, func(b *testing.B) {
			env := testEnv(b)
			for i := range 500 {
				testfs.Write(b, filepath.Join(env.Dir, fmt.Sprintf("pkg%d", i%20), fmt.Sprintf("f%d.go", i)), "package x\n")
			}
			testfs.Write(b, filepath.Join(env.Dir, ".git", "HEAD"), "ref: refs/heads/main\n")
			testfs.Write(b, filepath.Join(env.Dir, ".env"), "K=v\n")
			testfs.Write(b, filepath.Join(env.Dir, "pkg3", "credentials.json"), "{}\n")
			boxed := env
			boxed.Sandbox = tools.SandboxConfig{Enabled: true}
			r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
			in := map[string]any{"command": command}
			var plain, sandboxed []time.Duration
			for i := 0; b.Loop(); i++ {
				for _, side := range []struct {
					env tools.Env
					out *[]time.Duration
				}{{env, &plain}, {boxed, &sandboxed}} {
					start := time.Now()
					res := r.Run(context.Background(), tools.Call{ID: "bench", Name: "bash", Input: in}, side.env)
					*side.out = append(*side.out, time.Since(start))
					if res.IsError {
						b.Fatalf("%s: %s", command, res.Text)
					}
				}
			}
			report := func(name string, d []time.Duration) time.Duration {
				slices.Sort(d)
				med := d[len(d)/2]
				b.ReportMetric(float64(d[0].Microseconds())/1000, name+"-min-ms")
				b.ReportMetric(float64(med.Microseconds())/1000, name+"-median-ms")
				b.ReportMetric(float64(d[len(d)-1].Microseconds())/1000, name+"-max-ms")
				return med
			}
			extra := report("sandboxed", sandboxed) - report("plain", plain)
			b.ReportMetric(float64(extra.Microseconds())/1000, "extra-median-ms")
		})
	}
}
