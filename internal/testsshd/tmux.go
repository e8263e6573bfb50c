package testsshd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TmuxSocket is the socket of a tmux server private to t (killed at
// cleanup; it starts with the first session made on it). Without tmux t
// is skipped, or failed when CHATLS_REQUIRE_SSHD is set: CI installs
// tmux with sshd.
func TmuxSocket(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CHATLS_REQUIRE_SSHD") != "" {
			t.Fatal("tmux is not installed")
		}
		t.Skip("tmux is not installed")
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	return sock
}
