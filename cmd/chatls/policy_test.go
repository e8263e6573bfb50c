package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRunPolicyCheck(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[tools]\nautoApprove = [\"bash(go test *)\"]\ndeny = [\"bash(rm *)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.toml")
	if err := os.WriteFile(broken, []byte("[tools]\nautoApprove = [\"bash(go test\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		first string
		code  int
	}{
		// A broken config still answers (SPEC §6: the decision word first, exit 0).
		{[]string{"check", "bash", `{"command":"go test ./..."}`, "--config", broken}, "require_approval", 0},
		{[]string{"check", "bash", `{"command":"go test ./..."}`, "--config", cfg}, "approve", 0},
		{[]string{"check", "bash", `{"command":"rm -fr x"}`, "--config=" + cfg}, "deny", 0},
		{[]string{"check", "--config", cfg, "bash", `{"command":"make"}`}, "require_approval", 0},
		{[]string{"check", "bash", `not json`, "--config", cfg}, "", 1},
		{[]string{"check", "bash"}, "", 2},
		{[]string{"explain"}, "", 2},
	} {
		var out, errb bytes.Buffer
		code := runPolicy(tc.args, &out, &errb)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %s)", tc.args, code, tc.code, errb.String())
		}
		if len(tc.args) > 4 && tc.args[4] == broken && !strings.Contains(errb.String(), broken+":2:") {
			t.Errorf("the config error must be on stderr too: %q", errb.String())
		}
		if tc.first != "" {
			if first, _, _ := strings.Cut(out.String(), "\n"); first != tc.first {
				t.Errorf("%v: first line %q, want %q\n%s", tc.args, first, tc.first, out.String())
			}
		}
	}
}

// A frontmatter that fails part-way through (here: after approving bash in
// a trusted workspace, before the rest ran) must not leave its approvals in
// force: `policy check --file` asks, and says why.
func TestRunPolicyCheckFailedFrontmatter(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	trust := "[trust]\nworkspaces = [" + strconv.Quote(dir) + "]\n"
	if err := os.WriteFile(cfg, []byte(trust), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, lua string) string {
		p := filepath.Join(dir, name)
		doc := "```lua\n" + lua + "\n```\n@You:\nhi\n"
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.chat", `flemma.opt.tools.auto_approve:append("bash(date)")`)
	failed := write("failed.chat", `flemma.opt.tools.auto_approve:append("bash(date)")
error("boom")`)
	t.Chdir(dir)
	for _, tc := range []struct {
		doc, first, trace string
	}{
		{good, "approve", ""},
		{failed, "require_approval", "frontmatter could not be evaluated"},
	} {
		var out, errb bytes.Buffer
		if code := runPolicy([]string{"check", "bash", `{"command":"date"}`, "--config", cfg, "--file", tc.doc}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.doc, code, errb.String())
		}
		if first, _, _ := strings.Cut(out.String(), "\n"); first != tc.first {
			t.Errorf("%s: first line %q, want %q\n%s", filepath.Base(tc.doc), first, tc.first, out.String())
		}
		if !strings.Contains(out.String(), tc.trace) {
			t.Errorf("%s: the trace does not say %q:\n%s", filepath.Base(tc.doc), tc.trace, out.String())
		}
	}
}
