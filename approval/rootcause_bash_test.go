package approval

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/fspath"
)

// realRun runs cmd with real bash in dir and returns the files under base
// it created or changed (by content), canonical.
func realRun(t *testing.T, base, dir, home, cmd string) []string {
	t.Helper()
	before := snapshot(base)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir = dir
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LC_ALL=C.UTF-8"}
	_ = c.Run()
	var changed []string
	for p, data := range snapshot(base) {
		if old, ok := before[p]; !ok || old != data {
			changed = append(changed, p)
		}
	}
	return changed
}

// snapshot maps every regular file under base to its content.
func snapshot(base string) map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return nil
	})
	return out
}

// checkWritesAsk fails when real bash changed a file outside the writable
// set (or a sensitive one) and the policy approved the command.
func checkWritesAsk(t *testing.T, e *Engine, f fixture, dir, cmd string, writable []string) {
	t.Helper()
	changed := realRun(t, filepath.Dir(f.root), dir, f.home, cmd)
	v := e.Decide(context.Background(), Call{ID: "r", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
	for _, p := range changed {
		if (!fspath.WithinAny(p, writable) || sensitiveToken(p) != "") && v.Decision == Approve {
			t.Errorf("%q in %s: bash wrote %s (outside the writable set or sensitive), but the policy approved\n%s", cmd, dir, p, v.Format())
		}
	}
}

const cfgWrites = `[tools]
autoApprove = ["$default", "bash(echo *)", "bash(printf *)", "bash(cat *)", "bash(cp *)", "bash(tee *)", "bash(sed *)", "bash(sort *)", "bash(uniq *)", "bash(shuf *)", "bash(xxd *)", "bash(tree *)", "bash(true)"]
`

// Issue 41, root cause 1: bash runs in tools.bash.cwd, and the policy
// judges relative paths there — and after every cd of the command itself.
func TestBashCwdIsWherePathsAreJudged(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	f := newFixture(t)
	outside := filepath.Join(filepath.Dir(f.root), "outside", "sub")
	writable := []string{f.root, f.tmp}
	cmds := []string{
		"echo x > out.txt",
		"echo x >> ../out2.txt",
		"printf x | tee t1.txt",
		"cp ../../ws/src/main.go copied.go",
		"cd .. && echo x > up.txt",
		"cd /; cd - >/dev/null; echo x > back.txt",
		"pushd .. >/dev/null; echo x > pushed.txt",
		"cd ../../ws/src && echo x > in-src.txt",
		"cd \"$OLDPWD\" 2>/dev/null; echo x > old.txt",
		"(cd ..; echo x > sub.txt); echo y > after.txt",
		"cd ../../ws && cd ../outside && echo x > back-out.txt",
	}
	for _, cwdSetting := range []string{"../outside/sub", outside, "src", ""} {
		user := cfgWrites
		if cwdSetting != "" {
			user += "[tools.bash]\ncwd = \"" + cwdSetting + "\"\n"
		}
		e, err := NewEngine(f.sources(t, user, "", false, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(f.doc)
		if cwdSetting != "" {
			dir = fspath.Abs(cwdSetting, dir, f.home)
		}
		for _, cmd := range cmds {
			checkWritesAsk(t, e, f, dir, cmd, writable)
		}
	}
	// The mutant this test catches: judging against the document's
	// directory approves a write that lands outside.
	e, _ := NewEngine(f.sources(t, cfgWrites+"[tools.bash]\ncwd = \"../outside/sub\"\n", "", false, nil), nil)
	if v := e.Decide(context.Background(), Call{ID: "r", Tool: "bash", Input: map[string]any{"command": "echo x > out.txt"}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision == Approve {
		t.Errorf("echo x > out.txt in an outside tools.bash.cwd was approved\n%s", v.Format())
	}
	// Inside, it still approves.
	e, _ = NewEngine(f.sources(t, cfgWrites+"[tools.bash]\ncwd = \"src\"\n", "", false, nil), nil)
	if v := e.Decide(context.Background(), Call{ID: "r", Tool: "bash", Input: map[string]any{"command": "echo x > out.txt"}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision != Approve {
		t.Errorf("echo x > out.txt in src: got %s\n%s", v.Decision, v.Format())
	}
	// A sensitive file read relative to tools.bash.cwd.
	if err := os.WriteFile(filepath.Join(outside, "notes"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.root, ".env"), filepath.Join(f.root, "src", "cfg")); err != nil {
		t.Fatal(err)
	}
	if v := e.Decide(context.Background(), Call{ID: "r", Tool: "bash", Input: map[string]any{"command": "cat cfg"}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision == Approve {
		t.Errorf("cat cfg (a link to .env in tools.bash.cwd) was approved\n%s", v.Format())
	}
}
