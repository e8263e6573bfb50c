package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

// benchFiles builds chatls as the README installs it (static:
// CGO_ENABLED=0) and writes the generated 10 MB document once.
func benchFiles(b *testing.B) (binary, doc string) {
	return benchFilesOf(b, chatgen.Generate(10<<20, 1))
}

func benchFilesOf(b *testing.B, text string) (binary, doc string) {
	b.Helper()
	dir := b.TempDir()
	binary = filepath.Join(dir, "chatls")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	doc = filepath.Join(dir, "big.chat")
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	return binary, doc
}

// BenchmarkCheckVsWcL runs `chatls check` and `wc -l` on the same 10 MB,
// ~7,500-turn document in one run, each as a whole process (SPEC §7:
// check should be a sizeable fraction of wc -l's speed).
func BenchmarkCheckVsWcL(b *testing.B) {
	binary, doc := benchFiles(b)
	info, _ := os.Stat(doc)
	run := func(b *testing.B, name string, args ...string) {
		b.SetBytes(info.Size())
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(name, args...)
			if err := cmd.Run(); err != nil {
				if _, ok := err.(*exec.ExitError); !ok {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("chatls-check", func(b *testing.B) { run(b, binary, "check", doc) })
	b.Run("wc-l", func(b *testing.B) { run(b, "wc", "-l", doc) })
}

// BenchmarkCheckOverWcL runs both commands in every iteration, so that the
// ratio holds under a machine load that changes during the run; it reports
// each command's time per run and check/wc-l.
func BenchmarkCheckOverWcL(b *testing.B) { checkOverWcL(b, chatgen.Generate(10<<20, 1)) }

// BenchmarkCheckOverWcLDense is the same on 10 MB of shorter messages
// (21,704 instead of 15,352), the shape of the conversation issue 17
// measured.
func BenchmarkCheckOverWcLDense(b *testing.B) { checkOverWcL(b, chatgen.GenerateDense(10<<20, 1)) }

func checkOverWcL(b *testing.B, text string) {
	binary, doc := benchFilesOf(b, text)
	var check, wc time.Duration
	timed := func(name string, args ...string) time.Duration {
		start := time.Now()
		if err := exec.Command(name, args...).Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	for b.Loop() {
		// wc -l right after a check runs ~0.5-0.9 ms slower than alone,
		// the more so the heavier the check: an untimed wc first takes
		// most of that, so that the ratio measures check, not its wake.
		timed("wc", "-l", doc)
		wc += timed("wc", "-l", doc)
		check += timed(binary, "check", doc)
	}
	n := float64(b.N)
	b.ReportMetric(float64(check.Microseconds())/n/1000, "ms-check/op")
	b.ReportMetric(float64(wc.Microseconds())/n/1000, "ms-wc/op")
	b.ReportMetric(float64(check)/float64(wc), "check/wc")
}
