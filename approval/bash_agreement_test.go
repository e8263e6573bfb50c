package approval

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stubNames are the programs the generated commands may run; each is a
// stub that records its name, so real bash shows which ones it executes.
var stubNames = []string{"aa", "bb", "rm", "git", "cat"}

// denyEngines has, per stub, a policy that denies running it.
func denyEngines(t *testing.T) (map[string]*Engine, fixture) {
	f := newFixture(t)
	out := map[string]*Engine{}
	for _, n := range stubNames {
		e, err := NewEngine(f.sources(t, "[tools]\nautoApprove = [\"bash(*)\"]\ndeny = [\"bash("+n+")\", \"bash("+n+" *)\"]\n", "", false, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = e
	}
	return out, f
}

// checkDenied fails when bash ran a program whose deny rule did not deny
// the command: deny rules are matched on what bash sees.
func checkDenied(t *testing.T, engines map[string]*Engine, f fixture, cmd string, ran []string) {
	t.Helper()
	for _, n := range ran {
		v := engines[n].Decide(context.Background(), Call{ID: "r", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
		if v.Decision != Deny {
			t.Errorf("%q: bash ran %s, but the rule denying it gave %s\n%s", cmd, n, v.Decision, v.Format())
		}
	}
}

// bashRuns runs cmd in real bash with only the stubs on PATH and returns
// the stubs it executed.
func bashRuns(t *testing.T, dir, cmd string) []string {
	t.Helper()
	// A log per run: a background job of an earlier run may write late.
	f, err := os.CreateTemp(dir, "ran-*.log")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	log := f.Name()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir = filepath.Join(dir, "work")
	c.Env = []string{"PATH=" + filepath.Join(dir, "bin"), "RAN_LOG=" + log, "LC_ALL=C.UTF-8", "HOME=" + dir}
	_ = c.Run() // syntax errors and failing stubs are part of the game
	data, _ := os.ReadFile(log)
	return strings.Fields(string(data))
}

func stubDir(t *testing.T) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	_ = bash
	dir := t.TempDir()
	for _, d := range []string{"bin", "work"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range stubNames {
		script := "#!/bin/sh\necho " + n + " >> \"$RAN_LOG\"\n"
		if err := os.WriteFile(filepath.Join(dir, "bin", n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The carriage-return cases of the issue, run in real bash: what bash
// executes, the policy sees.
func TestParserAndBashAgreeOnCarriageReturns(t *testing.T) {
	dir := stubDir(t)
	engines, f := denyEngines(t)
	for _, cmd := range []string{
		"git status \r#; rm -rf x",
		"git status \\\r\nrm -rf x",
		"aa\rbb; rm x",
		"aa \\\r\n\\\r\nrm x",
		"cat <<EOF\r\nx\r\nEOF\r\nrm x",
		"aa '\r'; rm x\r",
		"aa\u00a0;\u00a0rm x",
	} {
		ran := bashRuns(t, dir, cmd)
		checkDenied(t, engines, f, cmd, ran)
		if !contains(ran, "rm") && strings.Contains(cmd, "rm") && !strings.Contains(cmd, "\u00a0") {
			t.Errorf("%q: bash did not run rm; the test case does not test what it should (ran %v)", cmd, ran)
		}
	}
}

// Property: for random command strings built from the characters where
// parsers and bash disagree most, every program real bash executes is
// denied by a rule that denies it.
func TestRandomCommandsAgreeWithBash(t *testing.T) {
	dir := stubDir(t)
	engines, f := denyEngines(t)
	seed := uint64(rand.Uint32())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	pieces := []string{
		" ", " ", "\t", ";", "&&", "||", "|", "\n", "\r", "\r\n", "\\\r\n", "\\\n", "#", "'", "\"", "\\",
		"$IFS", "${IFS}", "{", "}", ",", "{rm,x}", "$'\\x72m'", "$(", ")", "`", "<<E\n", "\nE\n", "&", "(", "x=rm;", "$x",
		"f(){ \"$@\"; };", "\u00a0", "\x01", "-rf", "x",
	}
	const n = 400
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := 1 + rng.IntN(8); k > 0; k-- {
			if rng.IntN(2) == 0 {
				b.WriteString(stubNames[rng.IntN(len(stubNames))])
			} else {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		cmd := b.String()
		checkDenied(t, engines, f, cmd, bashRuns(t, dir, cmd))
	}
}
