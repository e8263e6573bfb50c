package tools

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

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

// The plan finds secrets by name and by inode, and re-scans a directory
// that changed.
func TestSandboxViewPlan(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	testfs.Write(t, filepath.Join(ws, "a", ".env.local"), "x")
	testfs.Write(t, filepath.Join(ws, "ok.txt"), "x")
	testfs.Write(t, filepath.Join(ws, "twin1"), "x")
	os.Link(filepath.Join(ws, "twin1"), filepath.Join(ws, "a", "twin2")) // both names inside, none sensitive
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.MkdirAll(filepath.Join(home, ".aws"), 0o755)
	testfs.Write(t, filepath.Join(home, "Documents", "key"), "k")
	os.Link(filepath.Join(home, "Documents", "key"), filepath.Join(home, "Documents", "id_ed25519"))
	v := planSandboxView([]string{ws}, home)
	want := sandboxView{
		maskFiles: []string{filepath.Join(home, "Documents", "id_ed25519"), filepath.Join(home, "Documents", "key"), filepath.Join(ws, "a", ".env.local")},
		maskDirs:  []string{filepath.Join(home, ".aws")},
		readOnly:  []string{filepath.Join(ws, ".git")},
	}
	slices.Sort(want.maskFiles)
	if strings.Join(v.maskFiles, " ") != strings.Join(want.maskFiles, " ") || strings.Join(v.maskDirs, " ") != strings.Join(want.maskDirs, " ") ||
		strings.Join(v.readOnly, " ") != strings.Join(want.readOnly, " ") {
		t.Errorf("plan:\n got %+v\nwant %+v", v, want)
	}
	// A new link to a file outside appears at the next call (its
	// directory changed).
	os.Link(filepath.Join(home, "Documents", "key"), filepath.Join(ws, "a", "copy"))
	v = planSandboxView([]string{ws}, home)
	if !strings.Contains(strings.Join(v.maskFiles, " "), filepath.Join(ws, "a", "copy")) {
		t.Errorf("the new hard link is not masked: %v", v.maskFiles)
	}
}

func TestSandboxNotes(t *testing.T) {
	for in, want := range map[string]string{
		"bash: line 1: /etc/x: Read-only file system":                                              "[sandbox: write to /etc/x refused]",
		"touch: cannot touch '/usr/y': Read-only file system":                                      "[sandbox: write to /usr/y refused]",
		"curl: (6) Could not resolve host: example.com":                                            "[sandbox: the network is off for this call]",
		"bash: connect: Network is unreachable\nbash: /dev/tcp/1.2.3.4/80: Network is unreachable": "[sandbox: the network is off for this call]",
	} {
		if got := appendSandboxNotes(in, false); !strings.HasSuffix(got, "\n\n"+want) {
			t.Errorf("%q → %q, want the note %q", in, got, want)
		}
	}
	if got := appendSandboxNotes("all fine", false); got != "all fine" {
		t.Errorf("a note without a cause: %q", got)
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
