package procsup

import (
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/chatls/chatls/internal/cputime"
)

// BenchmarkRun: `bash -c true` through Run with the spare supervisor, and
// without one, as the first call and each of several at once pay (the bash
// tool's own overhead is tools/builtin's BenchmarkBashOverhead).
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	run := func(b *testing.B) {
		cmd := exec.Command("bash", "-c", "true")
		cmd.Dir = dir
		if out := Run(context.Background(), cmd, io.Discard, 0, nil); out.StartErr != nil || out.ExitCode != 0 {
			b.Fatalf("%+v", out)
		}
	}
	b.Run("spare", func(b *testing.B) {
		loopWithCPU(b, func() { run(b) })
	})
	b.Run("no-spare", func(b *testing.B) {
		if !Available {
			b.Skip("unsupervised")
		}
		loopWithCPU(b, func() {
			b.StopTimer()
			pool.mu.Lock()
			s := pool.idle
			pool.idle = nil
			pool.mu.Unlock()
			if s != nil {
				s.cut() // gone before the call: it starts its own
				<-s.exited
			}
			b.StartTimer()
			run(b)
		})
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
