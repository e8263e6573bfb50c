package builtin

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/internal/tooltest"
	"github.com/chatls/chatls/tools"
)

// gitInit makes a repository with one commit in dir (real git).
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "Tess"},
		{"config", "commit.gpgsign", "false"},
	} {
		mustGit(t, dir, args...)
	}
	testfs.Write(t, filepath.Join(dir, "a.txt"), "one\n")
	mustGit(t, dir, "add", "a.txt")
	mustGit(t, dir, "commit", "-q", "-m", "first commit")
}

func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestGitTools(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env := testEnv(t)
	gitInit(t, env.Dir)
	at := func(p string) string { return filepath.Join(env.Dir, p) }

	wantText(t, run(t, env, "git_status", tooltest.Decode(t, `{"path":null}`)), "# branch.oid "+strings.TrimSpace(mustGit(t, env.Dir, "rev-parse", "HEAD"))+"\n# branch.head main")
	testfs.Write(t, at("a.txt"), "one\ntwo\n")
	testfs.Write(t, at("b.txt"), "new\n")
	res := run(t, env, "git_status", tooltest.Decode(t, `{"path":"a.txt"}`))
	if !strings.Contains(res.Text, "1 .M N... ") || !strings.Contains(res.Text, "? b.txt") {
		t.Fatalf("status: %q", res.Text)
	}
	res = run(t, env, "git_diff", tooltest.Decode(t, `{}`))
	if !strings.Contains(res.Text, "+two") || res.IsError {
		t.Fatalf("diff: %q", res.Text)
	}
	wantText(t, run(t, env, "git_diff", tooltest.Decode(t, `{"staged":true}`)), "No changes.")

	res = run(t, env, "git_commit", tooltest.Decode(t, `{"message":"add two","files":["a.txt"]}`))
	if res.IsError || !strings.Contains(res.Text, "add two") {
		t.Fatalf("commit: %q", res.Text)
	}
	if st := mustGit(t, env.Dir, "status", "--porcelain"); st != "?? b.txt\n" {
		t.Fatalf("commit took more than its files: %q", st)
	}
	res = run(t, env, "git_log", tooltest.Decode(t, `{"limit":5}`))
	if !regexp.MustCompile(`^[0-9a-f]{7,} \d{4}-\d\d-\d\d Tess: add two\n[0-9a-f]{7,} \d{4}-\d\d-\d\d Tess: first commit$`).MatchString(res.Text) {
		t.Fatalf("log: %q", res.Text)
	}

	wantText(t, run(t, env, "git_branch", tooltest.Decode(t, `{"create":true,"name":"feature/x","from":"HEAD~1"}`)), "Created branch feature/x")
	res = run(t, env, "git_branch", tooltest.Decode(t, `{}`))
	if !strings.Contains(res.Text, "  feature/x ") || !strings.Contains(res.Text, "* main ") {
		t.Fatalf("branches: %q", res.Text)
	}
	for tool, in := range map[string]string{"git_branch": `{"create":true,"name":"-D"}`, "git_diff": `{"ref":"--output=/tmp/x"}`, "git_log": `{"ref":"--exec=touch /tmp/x"}`} {
		if res := run(t, env, tool, tooltest.Decode(t, in)); !res.IsError || !strings.Contains(res.Text, "must not start with '-'") {
			t.Errorf("%s %s: %q", tool, in, res.Text)
		}
	}
	if res := run(t, env, "git_branch", tooltest.Decode(t, `{"create":true,"name":"bad..name"}`)); !res.IsError {
		t.Errorf("an invalid name: %q", res.Text)
	}

	// Push to a bare repository as the remote; then a rewritten history
	// goes only with force (as --force-with-lease).
	remote := t.TempDir()
	mustGit(t, remote, "init", "-q", "--bare")
	mustGit(t, env.Dir, "remote", "add", "origin", remote)
	res = run(t, env, "git_push", tooltest.Decode(t, `{}`))
	if res.IsError || !strings.Contains(res.Text, "refs/heads/main:refs/heads/main") {
		t.Fatalf("push: %q", res.Text)
	}
	mustGit(t, env.Dir, "commit", "-q", "--amend", "-m", "rewritten")
	if res := run(t, env, "git_push", tooltest.Decode(t, `{"remote":"origin","branch":"main"}`)); !res.IsError {
		t.Fatalf("a non-fast-forward push went through: %q", res.Text)
	}
	if res := run(t, env, "git_push", tooltest.Decode(t, `{"force":true}`)); res.IsError {
		t.Fatalf("force-with-lease: %q", res.Text)
	}
	if got, want := mustGit(t, remote, "log", "-1", "--format=%s", "main"), "rewritten\n"; got != want {
		t.Fatalf("remote has %q", got)
	}

	mustGit(t, env.Dir, "checkout", "-q", "--detach")
	if res := run(t, env, "git_push", tooltest.Decode(t, `{}`)); !res.IsError || !strings.Contains(res.Text, "detached HEAD") {
		t.Errorf("detached: %q", res.Text)
	}
	if res := run(t, env, "git_status", tooltest.Decode(t, `{"path":"`+t.TempDir()+`"}`)); !res.IsError || !strings.Contains(res.Text, "is not inside a git repository") {
		t.Errorf("outside a repository: %q", res.Text)
	}
	if !InGitRepository(at("b.txt")) || InGitRepository(t.TempDir()) {
		t.Error("InGitRepository")
	}
}

// Before a commit, push or branch creation runs, its effect says what it
// will change.
func TestGitEffects(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env := testEnv(t)
	gitInit(t, env.Dir)
	reg := tools.NewRegistry(Tools(Options{}))
	effect := func(name, input string) string {
		return reg.Effect(context.Background(), tools.Call{Name: name, Input: tooltest.Decode(t, input)}, env)
	}
	testfs.Write(t, filepath.Join(env.Dir, "a.txt"), "one\ntwo\nthree\n")
	testfs.Write(t, filepath.Join(env.Dir, "new.txt"), "x\ny\n")
	if got, want := effect("git_commit", `{"message":"more\n\nbody","files":["a.txt","new.txt","same.txt"]}`),
		"commits \"more\" with:\n  +2 -0 a.txt\n  +2 -0 new.txt\n  (no changes) same.txt"; got != want {
		t.Errorf("commit effect:\n%s\nwant:\n%s", got, want)
	}
	remote := t.TempDir()
	mustGit(t, remote, "init", "-q", "--bare")
	mustGit(t, env.Dir, "remote", "add", "origin", remote)
	if got := effect("git_push", `{}`); !strings.HasPrefix(got, "pushes 1 commit(s) to origin/main (new branch):\n  ") || !strings.HasSuffix(got, " first commit") {
		t.Errorf("push to a new branch: %q", got)
	}
	mustGit(t, env.Dir, "push", "-q", "origin", "main")
	if got := effect("git_push", `{}`); got != "pushes nothing new to origin/main" {
		t.Errorf("nothing new: %q", got)
	}
	mustGit(t, env.Dir, "commit", "-q", "-am", "second")
	if got := effect("git_push", `{"force":true}`); !strings.HasPrefix(got, "pushes 1 commit(s) to origin/main with --force-with-lease:\n  ") || !strings.HasSuffix(got, " second") {
		t.Errorf("push: %q", got)
	}
	if got := effect("git_branch", `{"create":true,"name":"x","from":"HEAD~1"}`); !strings.HasPrefix(got, "creates x at HEAD~1 (") || !strings.HasSuffix(got, " first commit)") {
		t.Errorf("branch: %q", got)
	}
	if got := effect("git_status", `{}`); got != "" {
		t.Errorf("a read has no effect: %q", got)
	}
}

// A merge conflict shows in git_status as unmerged entries, and committing
// only some of the files of a conflicted merge is refused by git, with its
// message.
func TestGitConflicts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env := testEnv(t)
	gitInit(t, env.Dir)
	mustGit(t, env.Dir, "checkout", "-q", "-b", "other")
	testfs.Write(t, filepath.Join(env.Dir, "a.txt"), "theirs\n")
	mustGit(t, env.Dir, "commit", "-q", "-am", "theirs")
	mustGit(t, env.Dir, "checkout", "-q", "main")
	testfs.Write(t, filepath.Join(env.Dir, "a.txt"), "ours\n")
	mustGit(t, env.Dir, "commit", "-q", "-am", "ours")
	if out, err := exec.Command("git", "-C", env.Dir, "merge", "-q", "other").CombinedOutput(); err == nil {
		t.Fatalf("the merge should conflict: %s", out)
	}
	res := run(t, env, "git_status", tooltest.Decode(t, `{}`))
	if res.IsError || !strings.Contains(res.Text, "\nu UU ") || !strings.HasSuffix(res.Text, " a.txt") {
		t.Fatalf("status: %q", res.Text)
	}
	testfs.Write(t, filepath.Join(env.Dir, "b.txt"), "b\n")
	res = run(t, env, "git_commit", tooltest.Decode(t, `{"message":"only b","files":["b.txt"]}`))
	if !res.IsError || !strings.Contains(res.Text, "git commit: ") || !strings.Contains(res.Text, "merge") {
		t.Fatalf("a partial commit in a merge: %q", res.Text)
	}
}
