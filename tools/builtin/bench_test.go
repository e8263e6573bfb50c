package builtin

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/cputime"
	"github.com/chatls/chatls/tools"
)

// grepBenchTree is the Go standard library's source: a real tree of ~11,000
// files and 150 MB that every Go toolchain has. CHATLS_BENCH_TREE overrides it.
func grepBenchTree(b *testing.B) string {
	if dir := os.Getenv("CHATLS_BENCH_TREE"); dir != "" {
		return dir
	}
	return filepath.Join(runtime.GOROOT(), "src")
}

const grepBenchPattern = `func [A-Za-z_]+Conn\(`

// BenchmarkGrep runs chatls grep and `grep -rn -E` on the same search, side
// by side: the same tree, the same skipped directories (--exclude-dir for
// each of skippedDirs), binary files skipped by both, no match limit. The
// tree is not a git work tree, so no .gitignore applies. Both report their
// match count, which must agree.
func BenchmarkGrep(b *testing.B) {
	tree := grepBenchTree(b)
	b.Run("chatls", func(b *testing.B) {
		env := tools.Env{Dir: tree, TempDir: b.TempDir(), DefaultTimeout: 600}
		r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
		in := map[string]any{"pattern": grepBenchPattern, "limit": 1000000.0}
		var matches int
		for b.Loop() {
			res := r.Run(context.Background(), tools.Call{ID: "g", Name: "grep", Input: in}, env)
			if res.IsError {
				b.Fatal(res.Text)
			}
			matches = strings.Count(res.Text, "\n") + 1
		}
		b.ReportMetric(float64(matches), "matches")
	})
	b.Run("grep-rn", func(b *testing.B) {
		if _, err := exec.LookPath("grep"); err != nil {
			b.Skip("grep not installed")
		}
		args := []string{"-rn", "-E", "--binary-files=without-match"}
		for _, d := range slices.Sorted(maps.Keys(skippedDirs)) {
			args = append(args, "--exclude-dir="+d)
		}
		args = append(args, grepBenchPattern, tree)
		var matches int
		for b.Loop() {
			out, err := exec.Command("grep", args...).Output()
			if err != nil {
				b.Fatal(err)
			}
			matches = strings.Count(string(out), "\n")
		}
		b.ReportMetric(float64(matches), "matches")
	})
}

// loopWithCPU runs body in b.Loop and reports CPU time per iteration.
func loopWithCPU(b *testing.B, body func()) {
	start := cputime.WithChildren()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	b.ReportMetric(float64((cputime.WithChildren()-start).Microseconds())/float64(max(n, 1)), "cpu-µs/op")
}

// BenchmarkReadOverhead: the read tool through the Runner (validation,
// slot, limits) against os.ReadFile of the same 10 KB file.
func BenchmarkReadOverhead(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "file.txt")
	os.WriteFile(path, []byte(strings.Repeat("some line of text, fifty bytes long, more or less\n", 200)), 0o644)
	b.Run("chatls-read", func(b *testing.B) {
		env := tools.Env{Dir: dir, TempDir: dir}
		r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
		in := map[string]any{"path": "file.txt", "label": "reading"}
		loopWithCPU(b, func() {
			if res := r.Run(context.Background(), tools.Call{ID: "r", Name: "read", Input: in}, env); res.IsError {
				b.Fatal(res.Text)
			}
		})
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		loopWithCPU(b, func() {
			if _, err := os.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkBashOverhead: `true` through the bash tool against exec'ing
// `bash -c true` directly.
func BenchmarkBashOverhead(b *testing.B) {
	dir := b.TempDir()
	b.Run("chatls-bash", func(b *testing.B) {
		env := tools.Env{Dir: dir, TempDir: dir}
		r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
		in := map[string]any{"command": "true"}
		loopWithCPU(b, func() {
			if res := r.Run(context.Background(), tools.Call{ID: "b", Name: "bash", Input: in}, env); res.IsError {
				b.Fatal(res.Text)
			}
		})
	})
	b.Run("exec-bash", func(b *testing.B) {
		loopWithCPU(b, func() {
			cmd := exec.Command("bash", "-c", "true")
			cmd.Dir = dir
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("chatls-bash-sandboxed", func(b *testing.B) {
		if err := tools.SandboxAvailable(""); err != nil {
			b.Skip(err)
		}
		env := tools.Env{Dir: dir, TempDir: dir, Writable: []string{dir}, Sandbox: tools.SandboxConfig{Enabled: true}}
		r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
		in := map[string]any{"command": "true"}
		loopWithCPU(b, func() {
			if res := r.Run(context.Background(), tools.Call{ID: "b", Name: "bash", Input: in}, env); res.IsError {
				b.Fatal(res.Text)
			}
		})
	})
}

// BenchmarkGitStatus10kFiles: git_status and git_diff in a repository of
// 10,000 committed files with 100 changed (issue 19's speed case).
func BenchmarkGitStatus10kFiles(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	for i := range 10000 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("line %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=b@x", "-c", "user.name=b", "commit", "-q", "-m", "all"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	for i := 0; i < 10000; i += 100 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.txt", i))
		if err := os.WriteFile(p, []byte("changed\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
	env := tools.Env{Dir: dir, WorkspaceRoot: dir, DefaultTimeout: 60}
	for _, tool := range []string{"git_status", "git_diff"} {
		b.Run(tool, func(b *testing.B) {
			for b.Loop() {
				res := r.Run(context.Background(), tools.Call{ID: "g", Name: tool, Input: map[string]any{}}, env)
				if res.IsError || !strings.Contains(res.Text, "f00000.txt") {
					b.Fatalf("%s: %.200s", tool, res.Text)
				}
			}
		})
	}
}
