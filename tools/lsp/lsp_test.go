package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
)

// gopls is required in CI (.ci/run installs it); elsewhere the test skips.
func requireGopls(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil {
		if os.Getenv("CHATLS_REQUIRE_GOPLS") != "" {
			t.Fatal("gopls is not on PATH (CHATLS_REQUIRE_GOPLS is set)")
		}
		t.Skip("gopls is not on PATH (go install golang.org/x/tools/gopls@latest, as .ci/run does)")
	}
}

// The five tools against the real gopls, on a module with an error, then
// the file fixed on disk: diagnostics follow the file.
func TestLSPToolsWithGopls(t *testing.T) {
	requireGopls(t)
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	testfs.Write(t, filepath.Join(dir, "lib.go"), "package m\n\n// Greet says hello.\nfunc Greet(name string) string { return \"hi \" + name }\n")
	testfs.Write(t, filepath.Join(dir, "other.go"), "package m\n\nvar greeting = Greet(\"c\")\n")
	main := filepath.Join(dir, "main.go")
	testfs.Write(t, main, "package m\n\nfunc use() string {\n\tvar n int = \"x\"\n\t_ = n\n\treturn Greet(\"a\") + Greet(\"b\")\n}\n")
	pool := NewPool()
	defer pool.Close()
	r := tools.NewRunner(tools.NewRegistry(append(builtin.Tools(builtin.Options{}), Tools(pool)...)))
	env := tools.Env{Dir: dir, WorkspaceRoot: dir, DefaultTimeout: 60}
	run := func(name string, input map[string]any) tools.Result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res := r.Run(ctx, tools.Call{ID: name, Name: name, Input: input}, env)
		if res.IsError {
			t.Fatalf("%s: %s", name, res.Text)
		}
		return res
	}
	if got := run("diagnostics", map[string]any{"path": "main.go"}).Text; !strings.HasPrefix(got, "main.go:4:") || !strings.Contains(got, ": error: ") {
		t.Fatalf("diagnostics: %q", got)
	}
	if got := run("symbols", map[string]any{"path": "lib.go"}).Text; got != "function Greet  lib.go:4:1" {
		t.Errorf("symbols: %q", got)
	}
	if got := run("symbols", map[string]any{"path": "main.go", "query": "Greet"}).Text; !strings.Contains(got, "Greet  lib.go:4:6") {
		t.Errorf("workspace symbols: %q", got)
	}
	if got := run("hover", map[string]any{"path": "main.go", "line": 6.0, "column": 10.0}).Text; !strings.Contains(got, "func Greet(name string) string") || !strings.Contains(got, "Greet says hello.") {
		t.Errorf("hover: %q", got)
	}
	if got := run("definition", map[string]any{"path": "main.go", "line": 6.0, "column": 10.0}).Text; got != "lib.go:4:6: func Greet(name string) string { return \"hi \" + name }" {
		t.Errorf("definition: %q", got)
	}
	// A symbol used in three files: its declaration and three uses.
	if got := run("references", map[string]any{"path": "lib.go", "line": 4.0, "column": 7.0}).Text; strings.Count(got, "\n") != 3 ||
		!strings.Contains(got, "main.go:6:9: return Greet(\"a\") + Greet(\"b\")") || !strings.Contains(got, "other.go:3:16: var greeting = Greet(\"c\")") || !strings.Contains(got, "lib.go:4:6: ") {
		t.Errorf("references: %q", got)
	}
	// Fixed on disk: the next call sees the new text.
	testfs.Write(t, main, "package m\n\nfunc use() string {\n\treturn Greet(\"a\")\n}\n")
	if got := run("diagnostics", map[string]any{"path": "main.go"}).Text; got != "No diagnostics." {
		t.Errorf("after the fix: %q", got)
	}
	// One server for the module, kept warm; started again after it died.
	pool.mu.Lock()
	n := len(pool.servers)
	var s *server
	for _, x := range pool.servers {
		s = x
	}
	pool.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d servers", n)
	}
	s.cmd.Process.Kill()
	<-s.dead
	if got := run("symbols", map[string]any{"path": "lib.go"}).Text; got != "function Greet  lib.go:4:1" {
		t.Errorf("after a crash: %q", got)
	}
}

func TestNoServerSaysWhatToInstall(t *testing.T) {
	pool := NewPool()
	pool.LookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "x.rs"), "fn main() {}\n")
	testfs.Write(t, filepath.Join(dir, "x.txt"), "hi\n")
	r := tools.NewRunner(tools.NewRegistry(Tools(pool)))
	env := tools.Env{Dir: dir, DefaultTimeout: 5}
	res := r.Run(context.Background(), tools.Call{ID: "a", Name: "diagnostics", Input: map[string]any{"path": "x.rs"}}, env)
	if !res.IsError || res.Text != "no language server for .rs files on PATH (install rust-analyzer)" {
		t.Errorf("%q", res.Text)
	}
	res = r.Run(context.Background(), tools.Call{ID: "b", Name: "diagnostics", Input: map[string]any{"path": "x.txt"}}, env)
	if !res.IsError || res.Text != "no language server is configured for .txt files" {
		t.Errorf("%q", res.Text)
	}
	if pool.Available() {
		t.Error("Available with nothing on PATH")
	}
}

// A server that crashes mid-request gives a clear error and is started
// again by the next call; one that never answers times out, and the next
// call gets a fresh one.
func TestMisbehavingServers(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "badserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/badserver").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "x.bad"), "text\n")
	starts := filepath.Join(dir, "starts")
	t.Setenv("BADSERVER_STARTS", starts)
	pool := NewPool()
	defer pool.Close()
	pool.Configure(map[string]Entry{"bad": {Name: "bad", Command: []string{bin}, Extensions: []string{".bad"}}}, 0, 0)
	r := tools.NewRunner(tools.NewRegistry(Tools(pool)))
	hover := func(timeout int) tools.Result {
		return r.Run(context.Background(), tools.Call{ID: "h", Name: "hover", Input: map[string]any{"path": "x.bad", "line": 1.0, "column": 1.0}},
			tools.Env{Dir: dir, DefaultTimeout: timeout})
	}
	countStarts := func() int {
		data, _ := os.ReadFile(starts)
		return strings.Count(string(data), "start")
	}

	t.Setenv("BADSERVER", "crash")
	res := hover(30)
	if !res.IsError || !strings.HasPrefix(res.Text, "the language server bad stopped (exit status 3) while answering hover; it starts again on the next call") {
		t.Fatalf("crash: %q", res.Text)
	}
	hover(30)
	if n := countStarts(); n != 2 {
		t.Fatalf("%d starts after a crash and another call, want 2", n)
	}

	t.Setenv("BADSERVER", "hang")
	pool.Close()
	pool = NewPool()
	defer pool.Close()
	pool.Configure(map[string]Entry{"bad": {Name: "bad", Command: []string{bin}, Extensions: []string{".bad"}}}, 0, 0)
	r = tools.NewRunner(tools.NewRegistry(Tools(pool)))
	before := countStarts()
	res = hover(1)
	if !res.IsError || !res.TimedOut || res.Text != "Tool hover timed out after 1 seconds." {
		t.Fatalf("hang: %+v", res)
	}
	hover(1)
	if n := countStarts() - before; n != 2 {
		t.Fatalf("%d starts after a hang and another call, want 2 (a fresh server)", n)
	}
}

// lsp.* from the settings: a configured server comes first and replaces a
// built-in of the same name; filetypes may be written without the dot.
func TestConfigureFrom(t *testing.T) {
	idle, settle := 60, 200
	p := NewPool()
	p.ConfigureFrom(config.LSPSettings{IdleTimeout: &idle, Settle: &settle, Servers: map[string]config.LSPServer{
		"gopls": {Command: []string{"gopls", "-remote=auto"}, Filetypes: []string{"go"}},
		"zls":   {Command: []string{"zls"}, Filetypes: []string{".zig"}, RootMarkers: []string{"build.zig"}},
		"empty": {},
	}})
	var names []string
	for _, e := range p.Entries {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "gopls zls rust-analyzer basedpyright pyright typescript-language-server clangd" {
		t.Errorf("entries %s", got)
	}
	if e := p.Entries[0]; e.Command[1] != "-remote=auto" || e.Extensions[0] != ".go" || p.Idle != time.Minute || p.Settle != 200*time.Millisecond {
		t.Errorf("%+v idle %v settle %v", e, p.Idle, p.Settle)
	}
}

// A user's server for a file type that has built-in entries too (python:
// basedpyright, pyright), named as editors name file types, is the one
// that serves it — also when no built-in one is installed.
func TestConfiguredServerWinsOverMissingBuiltin(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "pyserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/badserver").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "x.py"), "print(1)\n")
	starts := filepath.Join(dir, "starts")
	t.Setenv("BADSERVER_STARTS", starts)
	for _, ft := range []string{"python", "py", ".py"} {
		t.Run(ft, func(t *testing.T) {
			os.Remove(starts)
			pool := NewPool()
			defer pool.Close()
			pool.LookPath = func(name string) (string, error) {
				if strings.Contains(name, "pyright") {
					return "", exec.ErrNotFound // the built-ins are not installed
				}
				return exec.LookPath(name)
			}
			pool.ConfigureFrom(config.LSPSettings{Servers: map[string]config.LSPServer{"mypy-ls": {Command: []string{bin}, Filetypes: []string{ft}}}})
			r := tools.NewRunner(tools.NewRegistry(Tools(pool)))
			res := r.Run(context.Background(), tools.Call{ID: "d", Name: "definition", Input: map[string]any{"path": "x.py", "line": 1.0, "column": 1.0}},
				tools.Env{Dir: dir, DefaultTimeout: 60})
			if strings.Contains(res.Text, "no language server") {
				t.Fatalf("the configured server was not used: %q", res.Text)
			}
			if data, _ := os.ReadFile(starts); string(data) != "start\n" {
				t.Errorf("the configured server must have started once, starts = %q (result %q)", data, res.Text)
			}
		})
	}
}
