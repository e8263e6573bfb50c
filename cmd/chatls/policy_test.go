package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chatls/chatls/tools"
)

func TestRunPolicyCheck(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(`[tools]
autoApprove = ["bash(go test *)"]
deny = ["bash(rm *)"]
[targets.build]
type = "ssh"
host = "build.example.com"
autoApprove = ["bash(make test)"]
deny = ["bash(make deploy)"]
[targets.term]
type = "local"
tmux = true
`), 0o644); err != nil {
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
		// On a remote target only its own lists approve; every deny list denies.
		{[]string{"check", "bash", `{"command":"go test ./..."}`, "--config", cfg, "--target", "build"}, "require_approval", 0},
		{[]string{"check", "bash", `{"command":"make test"}`, "--config", cfg, "--target=build"}, "approve", 0},
		{[]string{"check", "bash", `{"command":"make deploy"}`, "--config", cfg, "--target", "build"}, "deny", 0},
		{[]string{"check", "bash", `{"command":"rm -fr x"}`, "--config", cfg, "--target", "build"}, "deny", 0},
		// The local target (with tmux or not) keeps this machine's rules.
		{[]string{"check", "bash", `{"command":"go test ./..."}`, "--config", cfg, "--target", "term"}, "approve", 0},
		{[]string{"check", "bash", `{"command":"go test ./..."}`, "--config", cfg, "--target", "local"}, "approve", 0},
		{[]string{"check", "bash", `{"command":"make test"}`, "--config", cfg, "--target", "nowhere"}, "", 1},
		{[]string{"check", "bash", `{"command":"make test"}`, "--config", cfg, "--target"}, "", 2},
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
		if slices.Contains(tc.args, "--target=build") && !strings.Contains(out.String(), "allowed by bash(make test) at targets.build of your settings") {
			t.Errorf("the trace must name the target's list:\n%s", out.String())
		}
		if code == 0 && tc.args[1] == "bash" {
			want := "sandbox: runs in the sandbox"
			if tools.SandboxAvailable("") != nil {
				want = "sandbox: runs outside the sandbox"
			}
			if slices.Contains(tc.args, "build") || slices.Contains(tc.args, "--target=build") || slices.Contains(tc.args, "term") {
				want = "sandbox: runs outside the sandbox (target "
			}
			if !strings.Contains(out.String(), "\n"+want) {
				t.Errorf("%v: want the line %q in\n%s", tc.args, want, out.String())
			}
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
