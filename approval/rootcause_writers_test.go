package approval

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// realCase runs cmd with real bash in the workspace and fails when it
// changed a file outside the workspace, printed the canary or left the
// marker while the policy approved it. It reports whether the command did
// any of that (so a case that does nothing can be told apart).
func realCase(t *testing.T, e *Engine, f fixture, cmd, canary string, env ...string) bool {
	t.Helper()
	base := filepath.Dir(f.root)
	before := snapshot(base)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir = f.root
	c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + f.home, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1",
		"GOCACHE=" + filepath.Join(f.tmp, "gocache"), "GOPATH=" + filepath.Join(f.tmp, "gopath"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}, env...)
	out, _ := c.CombinedOutput()
	var bad []string
	if strings.Contains(string(out), canary) {
		bad = append(bad, "printed the canary")
	}
	for p, data := range snapshot(base) {
		if old, ok := before[p]; (!ok || old != data) && !strings.HasPrefix(p, f.root+"/") && !strings.HasPrefix(p, f.tmp+"/") {
			bad = append(bad, "changed "+p)
		}
	}
	if len(bad) == 0 {
		return false
	}
	v := e.Decide(context.Background(), Call{ID: "w", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
	if v.Decision == Approve {
		t.Errorf("%s: bash %s, but the policy approved\n%s", cmd, strings.Join(bad, ", "), v.Format())
	}
	return true
}

func plantCanary(t *testing.T, f fixture, canary string) {
	t.Helper()
	for _, n := range []string{".env", "config/credentials.json"} {
		p := filepath.Join(f.root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(canary+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(f.root, "src", n), []byte("alpha\npackage\nbeta\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 41, root cause 4: what GNU sed's script language and the output
// options of sed, tree, shuf, xxd, sort and uniq write or read, run for
// real: every write outside the workspace and every secret read asks.
func TestScriptAndOutputOptionWritesAgreeWithRealPrograms(t *testing.T) {
	for _, p := range []string{"bash", "sed"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip("needs " + p)
		}
	}
	if out, _ := exec.Command("sed", "--version").Output(); !strings.Contains(string(out), "GNU") {
		t.Skip("needs GNU sed")
	}
	f := newFixture(t)
	const canary = "CANARY_4d2c"
	plantCanary(t, f, canary)
	for _, n := range []string{"r1.txt", "r2.txt", "r3.txt"} {
		if err := os.WriteFile(filepath.Join(f.root, n), []byte("alpha\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(filepath.Dir(f.root), "outside", "ssrc"), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(f.sources(t, cfgWrites, "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := "../outside/"
	cases := []string{
		"sed -n '0~3w " + o + "s1' src/a.txt",
		"sed -n '1,+2w " + o + "s2' src/a.txt",
		"sed -n '/PACK/Iw " + o + "s3' src/a.txt",
		"sed -n '\\%pack%w " + o + "s4' src/a.txt",
		"sed -n '$w " + o + "s5' src/a.txt",
		"sed -n '1,~2W " + o + "s6' src/a.txt",
		"sed 's/a/b/w " + o + "s7' src/a.txt",
		"sed 's/a/b/gIw " + o + "s7b' src/a.txt",
		"sed -n -e '/a/,/b/{w " + o + "s8' -e '}' src/a.txt",
		"sed -e 1d -e 'w " + o + "s9' src/a.txt",
		"sed --expression='1{p;w " + o + "s10' --expression='}' src/a.txt",
		"sed '0,/pack/w " + o + "s11' src/a.txt",
		"sed -n 'y/a/b/;w " + o + "s12' src/a.txt",
		"sed -n '1!G;h;$!d;w " + o + "s13' src/a.txt",
		"sed -n '2{\nw " + o + "s14\n}' src/a.txt",
		"sed -n '/x/b end;w " + o + "s15\n:end' src/a.txt",
		"sed '1a text; w " + o + "not-a-write\n2w " + o + "s16' src/a.txt",
		"sed -n '1 ! w " + o + "s17' src/a.txt",
		"sed -n '\\,a,Mw " + o + "s18' src/a.txt",
		"sed -n 's/[/]/x/;w " + o + "s19' src/a.txt",
		"sed '1r .env' src/a.txt",
		"sed 'R config/credentials.json' src/a.txt",
		"sed '0~1r .env' src/a.txt",
		"sed '1e touch " + o + "e1' src/a.txt",
		"sed 's/.*/touch ..\\/outside\\/e2/e' src/a.txt",
		"sed -i'" + o + "*' s/a/b/ r1.txt",
		"sed --in-place='" + o + "*.orig' s/a/b/ r2.txt",
		"sed -i'../outside/' s/a/b/ r3.txt",
		"sed -i'" + o + "s*' s/a/b/ src/b.txt",
		"sed -i" + o + "x s/a/b/ src/a.txt",
		"sed -s -i'../*.bak' s/a/b/ src/a.txt",
		"shuf -o " + o + "u1 src/a.txt",
		"shuf --out=" + o + "u2 src/a.txt",
		"shuf -n1 -o" + o + "u3 src/a.txt",
		"xxd src/a.txt " + o + "x1",
		"xxd -c 8 src/a.txt " + o + "x2",
		"xxd -c8 -g 2 src/a.txt " + o + "x3",
		"sort -o " + o + "o1 src/a.txt",
		"sort -mo" + o + "o2 src/a.txt",
		"uniq src/a.txt " + o + "q1",
	}
	if _, err := exec.LookPath("tree"); err == nil {
		cases = append(cases, "tree -o "+o+"t1 src", "tree -ao "+o+"t2 src")
	}
	if _, err := exec.LookPath("xxd"); err != nil {
		t.Log("no xxd: its cases test nothing here")
	}
	for _, cmd := range cases {
		if !realCase(t, e, f, cmd, canary) && !strings.Contains(cmd, "-s -i'../*") && !strings.Contains(cmd, "-i../outside/x") && !strings.Contains(cmd, "'../outside/'") &&
			(!strings.HasPrefix(cmd, "xxd") || hasProgram("xxd")) {
			t.Errorf("%s did nothing outside the workspace: the case tests nothing", cmd)
		}
	}
	// What stays approved: in-workspace edits, prints, writes to harmless devices.
	for _, cmd := range []string{"sed -n 1p src/a.txt", "sed -i s/a/b/ src/a.txt", "sed -i.bak s/a/b/ src/a.txt",
		"sed -n 'w /dev/stdout' src/a.txt", "sed '1a\\\nhello' src/a.txt", "sed -n '/a/{p;q}' src/a.txt",
		"shuf -o out.txt src/a.txt", "xxd src/a.txt out.hex", "tree -o tree.txt src", "sed -n 'w src/copy.txt' src/a.txt"} {
		if v := e.Decide(context.Background(), Call{ID: "w", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision != Approve {
			t.Errorf("%s: got %s\n%s", cmd, v.Decision, v.Format())
		}
	}
}

func hasProgram(p string) bool {
	_, err := exec.LookPath(p)
	return err == nil
}

// The parser itself: GNU sed's grammar.
func TestSedScriptParser(t *testing.T) {
	for _, c := range []struct {
		script        string
		writes, reads string
		runs, bad     bool
	}{
		{script: "p"},
		{script: "0~3w out", writes: "out"},
		{script: "1,+2w a b;c", writes: "a b;c"},
		{script: "/x/Iw f", writes: "f"},
		{script: "\\%x%w f", writes: "f"},
		{script: "$!W f", writes: "f"},
		{script: "s/a/b/w f", writes: "f"},
		{script: "s|a|b|gp2w f", writes: "f"},
		{script: "s/a/b/e", runs: true},
		{script: "1e id", runs: true},
		{script: "r x\nR y", reads: "x,y"},
		{script: "1{\n/a/w f\n}", writes: "f"},
		{script: "a\\\nw not\nw yes", writes: "yes"},
		{script: "y/abc/xyz/;p"},
		{script: ":a;N;$!ba;s/\\n/ /g"},
		{script: "s/[/]/x/;w f", writes: "f"},
		{script: "1d}", bad: true},
		{script: "k", bad: true},
		{script: "s/a/b", bad: true},
		{script: "{p", bad: true},
		{script: "pw f", bad: true},
	} {
		got := parseSedScript(c.script)
		if strings.Join(got.writes, ",") != c.writes || strings.Join(got.reads, ",") != c.reads || got.runs != c.runs || (got.bad != "") != c.bad {
			t.Errorf("%q: got %+v", c.script, got)
		}
	}
}

// Issue 41, root cause 6: options, environment variables and file names
// that make an allowed program run another, run for real.
func TestProgramsRunningOthersAgreeWithRealPrograms(t *testing.T) {
	if !hasProgram("bash") || !hasProgram("git") {
		t.Skip("needs bash and git")
	}
	f := newFixture(t)
	const canary = "CANARY_6b0e"
	plantCanary(t, f, canary)
	script := filepath.Join(f.root, "pre.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch ../outside/ran-$$\ncat \"$1\" 2>/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runIn(t, f.root, "git", "init", "-q")
	runIn(t, f.root, "git", "add", "src")
	e, err := NewEngine(f.sources(t, "[tools]\nautoApprove = [\"$default\", \"bash(git grep *)\", \"bash(rg *)\", \"bash(tar *)\", \"bash(go *)\", \"bash(uv *)\", \"bash(ls *)\", \"bash(cp *)\"]\n", "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []string{
		"git grep -O'touch ../outside/g1' package",
		"git grep --open-files-in-pager='touch ../outside/g2' package",
		"git grep -nO'touch ../outside/g3' package",
	}
	if hasProgram("rg") {
		cases = append(cases, "rg --pre ./pre.sh package src", "rg --pre=./pre.sh package src")
	}
	if hasProgram("tar") {
		for _, n := range []string{"--checkpoint=1", "--checkpoint-action=exec=sh pre.sh"} {
			if err := os.WriteFile(filepath.Join(f.root, n), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cases = append(cases, "tar cf src/a.tar *", "tar cf src/b.tar *.sh *")
	}
	if hasProgram("go") {
		if err := os.WriteFile(filepath.Join(f.root, "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.root, "src", "main.go"), []byte("package main\nfunc main(){}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, "GOCACHEPROG=./pre.sh go build -o src/x ./src")
	}
	did := 0
	for _, cmd := range cases {
		if realCase(t, e, f, cmd, canary) {
			did++
		} else {
			t.Logf("%s did nothing here", cmd)
		}
	}
	if did < 3 {
		t.Errorf("only %d cases ran another program for real", did)
	}
	// Policy-only cases (no real program needed): uv run and unknown
	// environment variables ask; -- and ./* keep globs safe.
	for _, c := range []struct {
		cmd  string
		want Decision
	}{
		{"rg --hostname-bin ./pre.sh x", RequireApproval}, {"rg --hostname-bin=./pre.sh x", RequireApproval},
		{"tree -o../outside/t src", RequireApproval}, {"sed -i'/tmp/*' s/a/b/ x", RequireApproval},
		{"uv run pytest", RequireApproval}, {"uv tool run ruff", RequireApproval}, {"uv --version", Approve},
		{"EXECIGNORE='*' ls", RequireApproval}, {"GOCACHEPROG=./x go build", RequireApproval},
		{"RSYNC_RSH=./x ls", RequireApproval}, {"LC_ALL=C ls", Approve},
		{"tar cf src/a.tar -- *", Approve}, {"tar cf src/a.tar ./*", Approve}, {"tar cf src/a.tar src/*", Approve},
		{"cp * src/", RequireApproval}, {"cp -- * src/", Approve},
	} {
		if v := e.Decide(context.Background(), Call{ID: "w", Tool: "bash", Input: map[string]any{"command": c.cmd}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision != c.want {
			t.Errorf("%s: got %s, want %s\n%s", c.cmd, v.Decision, c.want, v.Format())
		}
	}
}
