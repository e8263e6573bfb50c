package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testsshd"
	"github.com/chatls/chatls/internal/tooltest"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

// parityTree is a directory with what the tools must get right: nested
// and pruned directories, symlinks, CRLF, binary and long files, names
// with spaces and a newline, a FIFO.
func parityTree(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"a.txt":                   "alpha\nbeta\nalpha beta\n",
		"a/b.go":                  "package a\n// alpha\n",
		"a/deep/c.go":             "package deep\n",
		"B upper.md":              "# Alpha title\n",
		"crlf.txt":                "one\r\ntwo alpha\r\n",
		"node_modules/x/alpha.js": "alpha\n",
		"name with\nnewline.txt":  "alpha\n",
		"long.txt":                strings.Repeat("line alpha\n", 3000),
		"bin.dat":                 "\x00\x01\x02alpha",
		"empty.txt":               "",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("a.txt", filepath.Join(dir, "link.txt"))
	os.Symlink("a", filepath.Join(dir, "linkdir"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
}

// sshEnv is env with its calls going to an ssh target whose root is the
// same directory: sshd runs here, so the same files are on both sides.
func sshEnv(t testing.TB, env tools.Env) tools.Env {
	env, _ = sshEnvServer(t, env)
	return env
}

// sshEnvServer is sshEnv with its sshd.
func sshEnvServer(t testing.TB, env tools.Env) (tools.Env, *testsshd.Server) {
	t.Helper()
	srv := testsshd.Start(t)
	m, err := target.NewSSH("build", target.SSHConfig{Host: srv.Host, ConfigFile: srv.ConfigFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	env.Target = tools.NewTargetEnv("build", m, env.Dir, nil)
	return env, srv
}

// runOn is run on env's target: the result must say where it ran, and
// comes back without that line, to compare with the local one.
func runOn(t *testing.T, env tools.Env, name string, input map[string]any) tools.Result {
	t.Helper()
	res := run(t, env, name, input)
	if env.Target == nil || !env.Target.Remote() {
		return res
	}
	prefix := fmt.Sprintf(tools.RanOnPrefix, env.Target.Name)
	if !strings.HasPrefix(res.Text, prefix) {
		t.Errorf("%s on target %s: the result does not say where it ran: %q", name, env.Target.Name, res.Text)
	}
	res.Text = strings.TrimPrefix(res.Text, prefix)
	return res
}

func TestTargetToolsMatchLocalTools(t *testing.T) {
	local := testEnv(t)
	parityTree(t, local.Dir)
	remote := sshEnv(t, local)
	calls := []struct {
		name  string
		input string
	}{
		{"read", `{"path":"a.txt"}`},
		{"read", `{"path":"crlf.txt"}`},
		{"read", `{"path":"long.txt","offset":10,"limit":5}`},
		{"read", `{"path":"long.txt"}`},
		{"read", `{"path":"bin.dat"}`},
		{"read", `{"path":"empty.txt"}`},
		{"read", `{"path":"missing.txt"}`},
		{"read", `{"path":"a"}`},
		{"read", `{"path":"fifo"}`},
		{"read", `{"path":"link.txt"}`},
		{"read", `{"path":"a.txt","offset":99}`},
		{"ls", `{}`},
		{"ls", `{"maxDepth":3}`},
		{"ls", `{"path":"a","limit":1}`},
		{"ls", `{"path":"nope"}`},
		{"ls", `{"path":"a.txt"}`},
		{"find", `{"pattern":"*.go"}`},
		{"find", `{"pattern":"a/**/*.go"}`},
		{"find", `{"pattern":"*.txt","limit":2}`},
		{"find", `{"pattern":"*.js"}`},
		{"find", `{"pattern":"*","path":"a"}`},
		{"grep", `{"pattern":"alpha"}`},
		{"grep", `{"pattern":"(?i)ALPHA","glob":"*.md"}`},
		{"grep", `{"pattern":"alpha$"}`},
		{"grep", `{"pattern":"alpha","limit":3}`},
		{"grep", `{"pattern":"alpha","path":"a"}`},
		{"grep", `{"pattern":"alpha","path":"a.txt"}`},
		{"grep", `{"pattern":"nothing-matches-this"}`},
		{"grep", `{"pattern":"alpha","path":"bin.dat"}`},
		{"grep", `{"pattern":"alpha","glob":"[x"}`},
		{"find", `{"pattern":"[x"}`},
		{"bash", `{"command":"printf 'x\\ny\\n'; echo err >&2; exit 3"}`},
		{"bash", `{"command":"seq 1 5000"}`},
		{"bash", `{"command":"true"}`},
	}
	for _, c := range calls {
		t.Run(c.name+" "+c.input, func(t *testing.T) {
			want := run(t, local, c.name, tooltest.Decode(t, c.input))
			got := runOn(t, remote, c.name, tooltest.Decode(t, c.input))
			// Full-output files are per call: compare their contents.
			if want.FullOutputPath != "" && got.FullOutputPath != "" && want.FullOutputPath != got.FullOutputPath {
				a, _ := os.ReadFile(want.FullOutputPath)
				b, _ := os.ReadFile(got.FullOutputPath)
				if string(a) != string(b) {
					t.Errorf("full output files differ")
				}
				got.Text = strings.ReplaceAll(got.Text, got.FullOutputPath, want.FullOutputPath)
				got.FullOutputPath = want.FullOutputPath
			}
			if c.name == "read" {
				// The full read output is the file itself, which is not here.
				want.FullOutputPath = ""
			}
			if got.Text != want.Text || got.IsError != want.IsError || got.Truncated != want.Truncated {
				t.Errorf("on the target:\n%q (error %v, truncated %v)\nhere:\n%q (error %v, truncated %v)", got.Text, got.IsError, got.Truncated, want.Text, want.IsError, want.Truncated)
			}
		})
	}
}

func TestTargetWriteAndEditMatchLocal(t *testing.T) {
	local := testEnv(t)
	remote := sshEnv(t, local)
	remoteDir := t.TempDir()
	remote.Target.Root = remoteDir
	var summaries []string
	for _, env := range []tools.Env{local, remote} {
		dir := env.Dir
		if env.Target != nil {
			dir = remoteDir
		}
		os.WriteFile(filepath.Join(dir, "script.sh"), []byte("echo one\r\necho two\r\n"), 0o755)
		results := []tools.Result{
			runOn(t, env, "write", tooltest.Decode(t, `{"path":"sub/dir/new.txt","content":"it's \"quoted\"\n$HOME `+"`x`"+`\n"}`)),
			runOn(t, env, "edit", tooltest.Decode(t, `{"path":"script.sh","oldText":"echo two\n","newText":"echo 2\n"}`)),
			runOn(t, env, "edit", tooltest.Decode(t, `{"path":"script.sh","oldText":"echo","newText":"x"}`)),
			runOn(t, env, "write", tooltest.Decode(t, `{"path":"sub","content":"x"}`)),
			runOn(t, env, "edit", tooltest.Decode(t, `{"path":"gone.txt","oldText":"a","newText":"b"}`)),
		}
		data, _ := os.ReadFile(filepath.Join(dir, "sub/dir/new.txt"))
		script, _ := os.ReadFile(filepath.Join(dir, "script.sh"))
		fi, _ := os.Stat(filepath.Join(dir, "script.sh"))
		summary := fmt.Sprintf("%q %q %v", data, script, fi.Mode())
		for _, r := range results {
			summary += fmt.Sprintf("\n%v %s", r.IsError, r.Text)
		}
		summaries = append(summaries, summary)
	}
	if summaries[0] != summaries[1] {
		t.Fatalf("here:\n%s\non the target:\n%s", summaries[0], summaries[1])
	}
}

func TestTargetBashCancelAndTimeout(t *testing.T) {
	env := sshEnv(t, testEnv(t))
	r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
	started := make(chan struct{})
	once := false
	env.Progress = func(p tools.Progress) {
		if p.LastLine == "started" && !once {
			once = true
			close(started)
		}
	}
	done := make(chan tools.Result, 1)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		done <- r.Run(ctx, tools.Call{ID: "c1", Name: "bash", Input: map[string]any{"command": "echo started; sleep 300.515 & sleep 300.515; wait"}}, env)
	}()
	select {
	case <-started:
	case <-time.After(2 * time.Minute):
		t.Fatal("the command did not start")
	}
	cancel(tools.ErrCancelled)
	res := <-done
	if !res.Cancelled || !strings.HasPrefix(res.Text, "[on target build]\nstarted") || !strings.HasSuffix(res.Text, tools.CancelledText) || *res.ExitCode != 137 {
		t.Fatalf("cancelled result %+v", res)
	}
	env.Progress = nil
	// 5 s, not 0.5: over ssh on a busy machine "before" can take longer
	// than half a second to be printed.
	res = runOn(t, env, "bash", tooltest.Decode(t, `{"command":"echo before; sleep 300.516","timeout":5}`))
	if !res.TimedOut || res.Text != "before\n\nCommand timed out after 5 seconds." {
		t.Fatalf("timed out result %+v", res)
	}
}

func TestLocalOnlyToolsRefuseOnARemoteTarget(t *testing.T) {
	env := sshEnv(t, testEnv(t))
	res := run(t, env, "mkdir", tooltest.Decode(t, `{"path":"x"}`))
	if !res.IsError || !strings.Contains(res.Text, "mkdir does not run on target build") {
		t.Fatalf("mkdir on a target: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "x")); err == nil {
		t.Fatal("mkdir ran here")
	}
	// Any built-in that is not one of the seven and touches files stays
	// off a remote target: the git and LSP tools too.
	for _, name := range []string{"git_status", "definition", "hover", "copy", "delete"} {
		if tools.OffersOnTarget(env.Target, name, true) {
			t.Errorf("%s is offered on a remote target", name)
		}
	}
	for _, name := range []string{"bash", "grep", "web_fetch", "calculator"} {
		if !tools.OffersOnTarget(env.Target, name, true) {
			t.Errorf("%s is not offered on a remote target", name)
		}
	}
	if tools.OffersOnTarget(env.Target, "capture_pane", true) || !tools.OffersOnTarget(env.Target, "my_plugin_tool", false) {
		t.Error("tmux tools need tmux; plugin tools run here on any target")
	}
}
