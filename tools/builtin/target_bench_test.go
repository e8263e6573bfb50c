package builtin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testsshd"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

// The per-call cost of a target, side by side with doing the same by
// hand (docs/performance.md): `bash true` and a 1 MB `read` over SSH with
// a warm master against plain `ssh -S SOCKET host true` / `cat`; a
// command in tmux against send-keys + wait-for + capture-pane.

func benchSSH(b *testing.B) (tools.Env, *testsshd.Server, *target.SSH, string) {
	b.Helper()
	env, srv := sshEnvServer(b, testEnv(b))
	m := env.Target.Machine.(*target.SSH)
	big := filepath.Join(env.Dir, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat(strings.Repeat("x", 99)+"\n", 10_000)), 0o644); err != nil {
		b.Fatal(err)
	}
	return env, srv, m, big
}

func benchRun(b *testing.B, env tools.Env, name string, input map[string]any) {
	r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
	for b.Loop() {
		if res := r.Run(context.Background(), tools.Call{ID: "b", Name: name, Input: input}, env); res.IsError {
			b.Fatalf("%s: %s", name, res.Text)
		}
	}
}

func BenchmarkTargetSSH(b *testing.B) {
	env, srv, m, big := benchSSH(b)
	// Warm the master once, as a session does on its first call.
	if res := run(b, env, "bash", map[string]any{"command": "true"}); res.IsError {
		b.Fatal(res.Text)
	}
	plain := func(b *testing.B, args ...string) {
		for b.Loop() {
			cmd := exec.Command("ssh", append([]string{"-S", m.ControlSocket(), "-F", srv.ConfigFile, srv.Host}, args...)...)
			if out, err := cmd.Output(); err != nil || len(out) == 0 && args[0] == "cat" {
				b.Fatalf("%v %v", err, len(out))
			}
		}
	}
	b.Run("bash_true", func(b *testing.B) { benchRun(b, env, "bash", map[string]any{"command": "true"}) })
	b.Run("plain_ssh_true", func(b *testing.B) { plain(b, "true") })
	b.Run("read_1MB", func(b *testing.B) {
		benchRun(b, env, "read", map[string]any{"path": "big.txt", "limit": float64(20_000)})
	})
	b.Run("plain_ssh_cat_1MB", func(b *testing.B) { plain(b, "cat", big) })
}

func BenchmarkTargetTmux(b *testing.B) {
	env, sock := tmuxEnv(b)
	if res := run(b, env, "bash", map[string]any{"command": "true"}); res.IsError {
		b.Fatal(res.Text)
	}
	b.Run("bash_true", func(b *testing.B) { benchRun(b, env, "bash", map[string]any{"command": "true"}) })
	b.Run("by_hand", func(b *testing.B) {
		tmux := func(args ...string) string {
			out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).Output()
			if err != nil {
				b.Fatal(err)
			}
			return string(out)
		}
		for b.Loop() {
			tmux("send-keys", "-t", "=chatls:", "-l", " true; tmux wait-for -S bench-done")
			tmux("send-keys", "-t", "=chatls:", "Enter")
			tmux("wait-for", "bench-done")
			tmux("capture-pane", "-p", "-J", "-t", "=chatls:", "-S", "-", "-E", "-")
		}
	})
}
