package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// A conversation's calls change files through bash (sed -i) and write;
// `chatls checkpoints` lists them, `chatls rewind` takes them back, a
// dry run changes nothing, the undo brings the agent's version back, a
// file the user changed since is a conflict left alone (exit 3) unless
// --overwrite, --conversation cuts FILE before the call — and the user's
// .git is byte-identical throughout (SPEC §10).
func TestCLIRewindTakesBackBashAndWrite(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	testfs.Write(t, filepath.Join(dir, "a.txt"), "one\n")
	git("add", "a.txt")
	git("commit", "-qm", "a")
	gitBefore := hashTree(t, filepath.Join(dir, ".git"))

	responses, _ := json.Marshal(map[string]any{"responses": []any{
		map[string]any{"text": "Editing.", "toolUses": []any{map[string]any{"id": "c1", "name": "bash",
			"input": map[string]any{"command": "sed -i s/one/two/ a.txt", "timeout": nil}}}},
		map[string]any{"text": "Adding.", "toolUses": []any{map[string]any{"id": "c2", "name": "write",
			"input": map[string]any{"path": "new.txt", "content": "new\n"}}}},
		map[string]any{"text": "Done."},
	}})
	config := scriptConfig(t, string(responses)) + "[tools]\nautoApprove = [\"$default\", \"bash(sed *)\", \"write\"]\n"
	file := filepath.Join(dir, "a.chat")
	testfs.Write(t, file, "@You:\nchange a.txt\n")
	if code, _, stderr := chatlsIn(t, dir, config, state, "send", "a.chat"); code != 0 {
		t.Fatalf("send: exit %d: %s", code, stderr)
	}
	agents := map[string]string{"a.txt": "two\n", "new.txt": "new\n"}
	if expectFiles(t, dir, agents) {
		chat, _ := os.ReadFile(file)
		t.Fatalf("the calls did not make the agent's files; the conversation:\n%s", chat)
	}

	code, stdout, stderr := chatlsIn(t, dir, config, state, "checkpoints", "a.chat")
	if code != 0 || !strings.Contains(stdout, "c1  ") || !strings.Contains(stdout, "bash (whole workspace)") ||
		!strings.Contains(stdout, "  modified a.txt") || !strings.Contains(stdout, "c2  ") || !strings.Contains(stdout, "  added new.txt") {
		t.Fatalf("checkpoints: exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "a.chat") {
		t.Errorf("the conversation itself was checkpointed:\n%s", stdout)
	}

	code, stdout, _ = chatlsIn(t, dir, config, state, "rewind", "a.chat", "--to", "c1", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "restore "+filepath.Join(dir, "a.txt")) || !strings.Contains(stdout, "remove "+filepath.Join(dir, "new.txt")) {
		t.Fatalf("dry run: exit %d\n%s", code, stdout)
	}
	expectFiles(t, dir, agents)

	if code, _, stderr = chatlsIn(t, dir, config, state, "rewind", "a.chat", "--to", "c1"); code != 0 || !strings.Contains(stderr, "1 file(s) restored, 1 removed") {
		t.Fatalf("rewind: exit %d: %s", code, stderr)
	}
	expectFiles(t, dir, map[string]string{"a.txt": "one\n", "new.txt": ""})

	if code, _, stderr = chatlsIn(t, dir, config, state, "rewind", "a.chat", "--undo"); code != 0 {
		t.Fatalf("undo: exit %d: %s", code, stderr)
	}
	expectFiles(t, dir, agents)

	// The user's own change since the calls is theirs.
	testfs.Write(t, filepath.Join(dir, "a.txt"), "mine\n")
	if code, _, stderr = chatlsIn(t, dir, config, state, "rewind", "a.chat", "--to", "c1"); code != 3 || !strings.Contains(stderr, "--overwrite") {
		t.Fatalf("rewind over a user's change: exit %d: %s", code, stderr)
	}
	expectFiles(t, dir, map[string]string{"a.txt": "mine\n", "new.txt": ""})
	if code, _, stderr = chatlsIn(t, dir, config, state, "rewind", "a.chat", "--to", "c1", "--overwrite", "--conversation"); code != 0 {
		t.Fatalf("rewind --overwrite --conversation: exit %d: %s", code, stderr)
	}
	expectFiles(t, dir, map[string]string{"a.txt": "one\n", "new.txt": ""})
	if got, _ := os.ReadFile(file); string(got) != "@You:\nchange a.txt\n\n" {
		t.Errorf("the conversation after --conversation: %q", got)
	}
	if gitAfter := hashTree(t, filepath.Join(dir, ".git")); gitAfter != gitBefore {
		t.Errorf("the user's .git changed")
	}
}

// chatlsIn runs the binary in dir with its own config and a state
// directory kept across commands (where the checkpoints live).
func chatlsIn(t *testing.T, dir, userConfig, state string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config")
	testfs.Write(t, filepath.Join(cfg, "chatls", "config.toml"), userConfig)
	// A bound far above any run on a busy machine, so that a hang fails
	// with a message instead of holding the suite until its timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+state)
	code, stdout, stderr = runCommand(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("chatls %v did not end within 5 minutes (stderr %q)", args, stderr)
	}
	return code, stdout, stderr
}

// expectFiles checks the files' contents; "" means the file must not exist.
func expectFiles(t *testing.T, dir string, want map[string]string) (failed bool) {
	t.Helper()
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case content == "" && err == nil:
			t.Errorf("%s exists (%q), want it gone", name, got)
			failed = true
		case content != "" && string(got) != content:
			t.Errorf("%s = %q (%v), want %q", name, got, err, content)
			failed = true
		}
	}
	return failed
}

// hashTree hashes every name, mode and byte under dir.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(p + "\x00" + info.Mode().String() + "\x00"))
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
