package approval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cfgBypass approves the commands attackers hide things behind and denies
// what they try to smuggle through (issue "Close the policy bypasses").
const cfgBypass = `[tools]
autoApprove = ["$default", "bash(git status *)", "bash(git status)", "bash(git diff *)", "bash(git log *)", "bash(cat *)", "bash(echo *)",
  "bash(xargs *)", "bash(go test *)", "bash(ls *)", "bash(cp *)", "bash(ln *)", "bash(printf *)", "bash(true)", "bash(f *)", "bash(grep *)",
  "bash(find *)", "bash(head *)", "bash(exec *)", "bash(r *)", "bash(alias *)", "bash(shopt *)"]
deny = ["bash(rm *)", "write(secrets/**)", "read(private/**)"]
`

// bypassRow is one attempt; want is what SPEC §4 says.
type bypassRow struct {
	cause, cmd string
	want       Decision
}

func bypassRows() []bypassRow {
	A, R, D := Approve, RequireApproval, Deny
	long := strings.Repeat("true; ", 2100) + "rm -rf x"
	return []bypassRow{
		// 1. Carriage returns and other characters the parser and bash read differently.
		{"cr", "git status \r#; rm -rf x", D},
		{"cr", "git status \\\r\nrm -rf x", D},
		{"cr", "git status\r", R},
		{"cr", "echo a\rb", R},
		{"cr", "echo ok\r\n", R},
		{"ctrl", "echo a\x01b", R},
		{"ctrl", "echo a\x0bb", R},
		{"nbsp", "echo\u00a0x", R},
		{"nbsp", "git status\u00a0;\u00a0rm -rf x", D},
		{"ok", "git status", A},
		{"ok", "echo 'tabs\tare fine'", A},
		// 2. What a command reads or writes, fully known or asked.
		{"brace", "cat .{e,x}nv", R},
		{"brace", "cat {.e,x}nv", R},
		{"brace", "cat src/{a,b}.go", A},
		{"exec", "exec 3< .env; cat <&3", R},
		{"exec", "exec 3<.env", R},
		{"wrapper-file", "xargs -a .env echo", R},
		{"wrapper-file", "xargs --arg-file=.env echo", R},
		{"wrapper-file", "xargs --arg-file .env echo", R},
		{"wrapper-file", "xargs -a public/x -a .env echo", R},
		{"wrapper-file", "xargs -a public/x echo", A},
		{"wrapper-file", "xargs --process-slot-var=N --process-slot-var=PATH echo", R},
		{"wrapper-file", "/usr/bin/time -o public/t -o secrets/k echo hi", D},
		{"wrapper-file", "strace -o public/t -o secrets/k echo hi", D},
		{"var", "x=.env; cat $x", R},
		{"var", "x=.env; cat \"$x\"", R},
		{"var", "x=src/main.go; cat $x", A},
		{"output-option", "git diff --output=/etc/x", R},
		{"output-option", "git log --output=/etc/x", R},
		{"output-option", "git diff --output=diff.txt", A},
		{"toolexec", "go test -exec 'sh -c id' ./...", R},
		{"toolexec", "go test -toolexec=/tmp/x ./...", R},
		{"toolexec", "go test -exec='rm -rf x' ./...", D},
		{"glob", "cat .e*", R},
		{"glob", "cat .??v", R},
		{"find-exec", "find . -name '.env' -exec cat {} \\;", R},
		// 3. Paths changed by the command itself.
		{"link", "cp -s /etc/passwd t && echo hi >> t", R},
		{"link", "ln -s /etc/passwd p; echo x >> p", R},
		{"link", "ln -sf /etc p && echo x > p/hosts", R},
		{"link", "cp -a /tmp/somelink t; echo x > t", R},
		{"link", "echo hi > out.txt", A},
		// 5. A deny is never lost where analysis gives up.
		{"limits", long, D},
		{"braces-cmd", "{rm,-rf,x}", D},
		{"ifs", "rm${IFS}-rf${IFS}x", D},
		{"ifs", "rm$IFS-rf$IFS/", D},
		{"function", "f(){ \"$@\"; }; f rm -rf x", D},
		{"dollar0", "$0 -c 'rm -rf x'", D},
		{"alias", "shopt -s expand_aliases; alias r=rm; r -rf x", D},
		{"unterminated", "rm -rf x \"", D},
		{"unterminated", "echo 'a; rm -rf x", D},
		{"heredoc", "cat <<EOF\nrm -rf x", D},
		// 6. Path rules apply to every tool by its effect.
		{"path-effect", "cat private/x", D},
		{"path-effect", "grep secret private/", D},
		{"path-effect", "echo x > secrets/key", D},
		{"path-effect", "cat public/x", A},
	}
}

func TestBypassesAreClosed(t *testing.T) {
	f := newFixture(t)
	for _, d := range []string{"private", "secrets", "public"} {
		os.MkdirAll(filepath.Join(f.root, d), 0o755)
	}
	os.WriteFile(filepath.Join(f.root, ".env"), []byte("KEY=1"), 0o600)
	e, err := NewEngine(f.sources(t, cfgBypass, "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range bypassRows() {
		name := fmt.Sprintf("%s: %.60q", r.cause, r.cmd)
		v := e.Decide(context.Background(), Call{ID: "b", Tool: "bash", Input: map[string]any{"command": r.cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
		if v.Decision != r.want {
			t.Errorf("%s: got %s, want %s\n%s", name, v.Decision, r.want, v.Format())
		}
	}
}

// Path rules stop at no tool's edge (root cause 6).
func TestPathRulesApplyByEffect(t *testing.T) {
	f := newFixture(t)
	e, err := NewEngine(f.sources(t, cfgBypass, "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool  string
		input map[string]any
		want  Decision
	}{
		{"edit", map[string]any{"path": "secrets/key", "oldText": "a", "newText": "b"}, Deny},
		{"write", map[string]any{"path": "secrets/key", "content": "x"}, Deny},
		{"read", map[string]any{"path": "private/x"}, Deny},
		{"grep", map[string]any{"pattern": "x", "path": "private"}, Deny},
		{"find", map[string]any{"pattern": "*", "path": "private/sub"}, Deny},
		{"ls", map[string]any{"path": "private"}, Deny},
		{"read", map[string]any{"path": "public/x"}, Approve},
	} {
		v := e.Decide(context.Background(), Call{ID: "p", Tool: c.tool, Input: c.input, DocPath: f.doc, WorkspaceRoot: f.root})
		if v.Decision != c.want {
			t.Errorf("%s %v: got %s, want %s\n%s", c.tool, c.input, v.Decision, c.want, v.Format())
		}
	}
}

// Option effects depend on git's subcommand: only the ones that write or
// run something ask.
func TestGitOptionsBySubcommand(t *testing.T) {
	f := newFixture(t)
	e, err := NewEngine(f.sources(t, "[tools]\nautoApprove = [\"$default\", \"bash(git *)\"]\n", "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]Decision{
		"git grep -o needle":                         Approve,
		"git status -u":                              Approve,
		"git clean -x -n":                            Approve,
		"git log --oneline -5":                       Approve,
		"git diff --output=/etc/x":                   RequireApproval,
		"git format-patch -o /etc/patches HEAD~1":    RequireApproval,
		"git rebase -x 'make test' main":             RequireApproval,
		"git -c core.pager=sh log":                   RequireApproval,
		"git -ccore.sshCommand=x fetch":              RequireApproval,
		"git clone -u 'sh -c id' https://x/y":        RequireApproval,
		"git bisect run ./check.sh":                  RequireApproval,
		"git -C src diff --output=out.diff":          Approve,
		"git -C /etc diff --output=out.diff":         RequireApproval, // lands in /etc
		"git submodule foreach 'git pull'":           RequireApproval,
		"git push --receive-pack='sh -c x' origin x": RequireApproval,
	} {
		v := e.Decide(context.Background(), Call{ID: "g", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
		if v.Decision != want {
			t.Errorf("%s: got %s, want %s\n%s", cmd, v.Decision, want, v.Format())
		}
	}
}

func TestReadDenied(t *testing.T) {
	f := newFixture(t)
	e, err := NewEngine(f.sources(t, cfgBypass, "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		f.root + "/private":         true,
		f.root + "/private/a/b.txt": true,
		f.root + "/public/x":        false,
		f.root + "/secrets/key":     false, // denied for writing, not reading
	} {
		if got := e.ReadDenied(p); got != want {
			t.Errorf("ReadDenied(%s) = %v, want %v", p, got, want)
		}
	}
}

// A broken workspace file (root cause 4): the user's deny still denies,
// nothing is approved, everything else asks.
func TestBrokenWorkspaceFileKeepsUserDenies(t *testing.T) {
	f := newFixture(t)
	src := f.sources(t, "[tools]\nautoApprove = [\"$default\", \"bash(echo *)\"]\ndeny = [\"bash(rm *)\"]\n", "", true, nil)
	src.WorkspaceError = ".chatls.toml:3: expected '=' after a key"
	e, err := NewEngine(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]Decision{"rm -rf x": Deny, "echo hi": RequireApproval} {
		v := e.Decide(context.Background(), Call{ID: "w", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
		if v.Decision != want || want == RequireApproval && !strings.Contains(v.Format(), "workspace configuration could not be loaded") {
			t.Errorf("%s: got %s, want %s\n%s", cmd, v.Decision, want, v.Format())
		}
	}
}
