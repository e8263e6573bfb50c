package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// BenchmarkSandboxCost runs the same bash command through the runner with
// and without the sandbox, interleaved (plain, sandboxed, plain, …, so load
// on a busy machine falls on both alike), in a workspace of 500 files with a
// .git and a few secrets to mask, and reports each side's min, median and
// max per call and the median difference:
//
//	go test ./tools -run '^$' -bench SandboxCost -benchtime 200x
func BenchmarkSandboxCost(b *testing.B) {
	requireSandbox(b)
	for _, command := range []string{"true", "echo hi"} {
		b.Run(command, func(b *testing.B) {
			env := testEnv(b)
			for i := range 500 {
				testfs.Write(b, filepath.Join(env.Dir, fmt.Sprintf("pkg%d", i%20), fmt.Sprintf("f%d.go", i)), "package x\n")
			}
			testfs.Write(b, filepath.Join(env.Dir, ".git", "HEAD"), "ref: refs/heads/main\n")
			testfs.Write(b, filepath.Join(env.Dir, ".env"), "K=v\n")
			testfs.Write(b, filepath.Join(env.Dir, "pkg3", "credentials.json"), "{}\n")
			boxed := env
			boxed.Sandbox = SandboxConfig{Enabled: true}
			r := NewRunner(NewRegistry(Builtins(BuiltinOptions{})))
			in := map[string]any{"command": command}
			var plain, sandboxed []time.Duration
			for i := 0; b.Loop(); i++ {
				for _, side := range []struct {
					env Env
					out *[]time.Duration
				}{{env, &plain}, {boxed, &sandboxed}} {
					start := time.Now()
					res := r.Run(context.Background(), Call{ID: "bench", Name: "bash", Input: in}, side.env)
					*side.out = append(*side.out, time.Since(start))
					if res.IsError {
						b.Fatalf("%s: %s", command, res.Text)
					}
				}
			}
			report := func(name string, d []time.Duration) time.Duration {
				slices.Sort(d)
				med := d[len(d)/2]
				b.ReportMetric(float64(d[0].Microseconds())/1000, name+"-min-ms")
				b.ReportMetric(float64(med.Microseconds())/1000, name+"-median-ms")
				b.ReportMetric(float64(d[len(d)-1].Microseconds())/1000, name+"-max-ms")
				return med
			}
			extra := report("sandboxed", sandboxed) - report("plain", plain)
			b.ReportMetric(float64(extra.Microseconds())/1000, "extra-median-ms")
		})
	}
}

// BenchmarkSandboxScan is the masking scan of that workspace and the home
// directory: first (cold) and with the cache checked (warm).
func BenchmarkSandboxScan(b *testing.B) {
	env := testEnv(b)
	for i := range 500 {
		testfs.Write(b, filepath.Join(env.Dir, fmt.Sprintf("pkg%d", i%20), fmt.Sprintf("f%d.go", i)), "package x\n")
	}
	home := b.TempDir()
	testfs.Write(b, filepath.Join(home, ".ssh", "id_rsa"), "k")
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			InvalidateSandboxScans()
			planSandboxView([]string{env.Dir}, home)
		}
	})
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			planSandboxView([]string{env.Dir}, home)
		}
	})
}
