package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// A full disk: chatls send says so on stderr and exits 1, and FILE keeps
// what it had (SPEC §7: written by temp file + rename, never torn). FILE
// lives on a 24 KiB tmpfs in a mount namespace of its own; the answer is
// larger than the disk's room for FILE and its temporary copy.
func TestCLISendOnAFullDiskKeepsTheFile(t *testing.T) {
	if err := exec.Command("unshare", "-rm", "true").Run(); err != nil {
		t.Skipf("no mount namespace here (unshare -rm: %v): a full disk cannot be made", err)
	}
	const question = "@You:\nwrite a long answer\n"
	answer := strings.Repeat("All work and no play makes a long answer. ", 1000) // 43 KB
	responses, _ := json.Marshal(map[string]any{"responses": []any{map[string]any{"text": answer}}})
	cfg := filepath.Join(t.TempDir(), "config")
	testfs.Write(t, filepath.Join(cfg, "chatls", "config.toml"), scriptConfig(t, string(responses)))
	disk, out := t.TempDir(), t.TempDir()
	testfs.Write(t, filepath.Join(out, "before.chat"), question)
	// Inside the namespace: mount the small disk, put FILE on it, send it,
	// and copy what FILE holds afterwards out of the disk that goes away.
	script := `mount -t tmpfs -o size=24k tmpfs "$1" && cp "$2/before.chat" "$1/a.chat" && cd "$1" || exit 99
"$3" send a.chat; code=$?
cp a.chat "$2/after.chat"; exit $code`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-rm", "sh", "-c", script, "sh", disk, out, binary)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	code, _, stderr := runCommand(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("chatls send on a full disk did not end within 2 minutes; stderr %q", stderr)
	}
	after, err := os.ReadFile(filepath.Join(out, "after.chat"))
	if err != nil {
		t.Fatalf("exit %d, stderr %q: %v", code, stderr, err)
	}
	if code != 1 || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "the file is unchanged") {
		t.Errorf("exit %d, stderr %q; want exit 1 and the disk's error", code, stderr)
	}
	if string(after) != question && !strings.HasPrefix(string(after), question+"\n@Assistant:\n") {
		t.Errorf("FILE is neither what it was nor it plus a clean prefix of the answer:\n%q", after)
	}
	if n := strings.Count(stderr, "\n"); n != 1 {
		t.Errorf("want one line on stderr, got %d: %q", n, stderr)
	}
}
