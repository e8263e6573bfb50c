package builtin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/internal/tooltest"
)

// A repository planted with configuration that starts programs — the
// fsmonitor, pager, external diff, a textconv and a filter driver from
// .gitattributes, hooks, a credential helper — runs none of them through
// the git read tools (real git; each program would leave a marker).
func TestGitToolsRunNoPlantedProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env := testEnv(t)
	gitInit(t, env.Dir)
	markers := t.TempDir()
	evil := filepath.Join(env.Dir, "evil.sh")
	testfs.Write(t, evil, fmt.Sprintf("#!/bin/sh\ntouch %s/\"$(basename \"$0\")-$$\"\ncat\n", markers))
	os.Chmod(evil, 0o755)
	for _, name := range []string{"fsmonitor", "pager", "external", "textconv", "clean", "smudge", "process", "helper", "hook"} {
		os.Symlink(evil, filepath.Join(env.Dir, name+".sh"))
	}
	for _, kv := range [][2]string{
		{"core.fsmonitor", "./fsmonitor.sh"}, {"core.pager", "./pager.sh"}, {"diff.external", "./external.sh"},
		{"diff.evil.textconv", "./textconv.sh"}, {"filter.evil.clean", "./clean.sh"}, {"filter.evil.smudge", "./smudge.sh"},
		{"filter.evil.process", "./process.sh"}, {"credential.helper", "!./helper.sh"}, {"core.hooksPath", "hooks"},
		{"pager.status", "./pager.sh"}, {"pager.diff", "./pager.sh"}, {"pager.log", "./pager.sh"}, {"log.showSignature", "true"},
		{"gpg.program", "./hook.sh"},
	} {
		mustGit(t, env.Dir, "config", kv[0], kv[1])
	}
	testfs.Write(t, filepath.Join(env.Dir, "hooks", "post-checkout"), "#!/bin/sh\n"+evil+"\n")
	testfs.Write(t, filepath.Join(env.Dir, ".gitattributes"), "*.txt diff=evil filter=evil\n")
	mustGitNoMarkers := func() {
		if entries, _ := os.ReadDir(markers); len(entries) != 0 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("a planted program ran: %v", names)
		}
	}
	// The planted configuration does run programs when git is used as is
	// (else this test could not fail).
	testfs.Write(t, filepath.Join(env.Dir, "a.txt"), "one\nchanged\n")
	plain := exec.Command("git", "-C", env.Dir, "diff")
	plain.Env = append(os.Environ(), "GIT_PAGER=")
	plain.CombinedOutput()
	if entries, _ := os.ReadDir(markers); len(entries) == 0 {
		t.Fatal("the planted configuration runs nothing even with plain git: the test proves nothing")
	}
	os.RemoveAll(markers)
	os.MkdirAll(markers, 0o755)

	for _, c := range []struct{ tool, input string }{
		{"git_status", `{"path":null}`}, {"git_diff", `{"path":null,"staged":null,"ref":null}`},
		{"git_diff", `{"path":null,"staged":null,"ref":"HEAD"}`}, {"git_log", `{"path":null,"limit":null,"ref":null}`},
		{"git_branch", `{"path":null,"name":null,"create":null,"from":null}`},
	} {
		res := run(t, env, c.tool, tooltest.Decode(t, c.input))
		if res.IsError {
			t.Errorf("%s: %s", c.tool, res.Text)
		}
		if c.tool == "git_diff" && !strings.Contains(res.Text, "+changed") {
			t.Errorf("%s shows the plain diff: %q", c.tool, res.Text)
		}
		mustGitNoMarkers()
	}
	res := run(t, env, "git_commit", tooltest.Decode(t, `{"path":null,"message":"planted","files":["a.txt"]}`))
	if res.IsError {
		t.Errorf("git_commit: %s", res.Text)
	}
	mustGitNoMarkers()
}

// A .git file or commondir leading outside the workspace is refused.
func TestGitToolsRefuseAGitDirOutside(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	outside := t.TempDir()
	gitInit(t, outside)
	env := testEnv(t)
	testfs.Write(t, filepath.Join(env.Dir, ".git"), "gitdir: "+filepath.Join(outside, ".git")+"\n")
	res := run(t, env, "git_status", tooltest.Decode(t, `{"path":null}`))
	if !res.IsError || !strings.Contains(res.Text, "points outside the workspace") {
		t.Errorf(".git file: %q", res.Text)
	}
	env2 := testEnv(t)
	gitInit(t, env2.Dir)
	testfs.Write(t, filepath.Join(env2.Dir, ".git", "commondir"), filepath.Join(outside, ".git")+"\n")
	res = run(t, env2, "git_log", tooltest.Decode(t, `{"path":null,"limit":null,"ref":null}`))
	if !res.IsError || !strings.Contains(res.Text, "commondir points outside the workspace") {
		t.Errorf("commondir: %q", res.Text)
	}
}
