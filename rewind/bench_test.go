package rewind

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// bigRepo is the benchmarks' 10,000-file repository (100 directories of
// 100 small committed files, and five untracked), made once per run.
var bigRepo = sync.OnceValues(func() (string, error) {
	root, err := os.MkdirTemp("", "chatls-rewind-bench-")
	if err != nil {
		return "", err
	}
	for d := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		for f := range 100 {
			text := fmt.Sprintf("package pkg%03d\n\n// file %d\nfunc F%d() int { return %d }\n", d, f, f, d*f)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(text), 0o644); err != nil {
				return "", err
			}
		}
	}
	cmd := exec.Command("bash", "-c", "git init -q -b main && git add -A && git commit -q -m init && for i in 1 2 3 4 5; do echo u$i > untracked$i.txt; done")
	cmd.Dir, cmd.Env = root, userEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return root, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if root, err := bigRepo(); err == nil && root != "" {
		os.RemoveAll(root)
	}
	os.Exit(code)
}

// BenchmarkCheckpointVsGitStatus: a whole-workspace checkpoint before a
// bash call against `git status --porcelain` in the same repository,
// interleaved A B A B; before each pair one file changes, as a call would
// change it. The first checkpoint (hashing everything once) is reported
// apart.
func BenchmarkCheckpointVsGitStatus(b *testing.B) {
	root, err := bigRepo()
	if err != nil {
		b.Fatal(err)
	}
	s := newStore(b, Options{})
	ctx := testCtx(b)
	doc := filepath.Join(root, "bench.chat")
	start := time.Now()
	if _, err := s.Checkpoint(ctx, Scope{Root: root, Doc: doc, ID: "first"}); err != nil {
		b.Fatal(err)
	}
	first := time.Since(start)
	var checkpoint, status []time.Duration
	b.ResetTimer()
	for i := range b.N {
		f := filepath.Join(root, fmt.Sprintf("pkg%03d", i%100), "f000.go")
		if err := os.WriteFile(f, fmt.Appendf(nil, "package x // %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := s.Checkpoint(ctx, Scope{Root: root, Doc: doc, ID: fmt.Sprint(i)}); err != nil {
			b.Fatal(err)
		}
		checkpoint = append(checkpoint, time.Since(start))
		start = time.Now()
		cmd := exec.Command("git", "status", "--porcelain")
		cmd.Dir, cmd.Env = root, userEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git status: %v\n%s", err, out)
		}
		status = append(status, time.Since(start))
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	slices.Sort(checkpoint)
	slices.Sort(status)
	med := func(ds []time.Duration) time.Duration { return ds[len(ds)/2] }
	b.ReportMetric(ms(first), "first-checkpoint-ms")
	b.ReportMetric(ms(checkpoint[0]), "checkpoint-min-ms")
	b.ReportMetric(ms(med(checkpoint)), "checkpoint-median-ms")
	b.ReportMetric(ms(checkpoint[len(checkpoint)-1]), "checkpoint-max-ms")
	b.ReportMetric(ms(status[0]), "status-min-ms")
	b.ReportMetric(ms(med(status)), "status-median-ms")
	b.ReportMetric(ms(status[len(status)-1]), "status-max-ms")
	b.ReportMetric(float64(med(checkpoint))/float64(med(status)), "ratio-median")
}

// BenchmarkUnchangedCall: a bash call that changes nothing in the
// 10,000-file repository — the bytes it adds to the store's objects.
func BenchmarkUnchangedCall(b *testing.B) {
	root, err := bigRepo()
	if err != nil {
		b.Fatal(err)
	}
	s := newStore(b, Options{})
	ctx := testCtx(b)
	doc := filepath.Join(root, "bench.chat")
	call := func(id string) {
		sc := Scope{Root: root, Doc: doc, ID: id}
		if _, err := s.Checkpoint(ctx, sc); err != nil {
			b.Fatal(err)
		}
		if err := s.After(ctx, sc); err != nil {
			b.Fatal(err)
		}
	}
	call("warm")
	size := objectsSize(b, s)
	b.ResetTimer()
	for i := range b.N {
		call(fmt.Sprint(i))
	}
	b.StopTimer()
	b.ReportMetric(float64(objectsSize(b, s)-size)/float64(b.N), "bytes-added/call")
}

// BenchmarkStoreGrowth: 100 bash calls, each rewriting one 1 MB file of a
// workspace (text that compresses as source does, about 4:3), against the
// changed bytes zlib-compressed — what git's loose objects cost at best.
func BenchmarkStoreGrowth(b *testing.B) {
	for range b.N {
		b.StopTimer()
		root := newRepo(b, map[string]string{"README": "r\n"})
		rng := rand.New(rand.NewPCG(1, 2))
		oneMB := func() []byte {
			raw := make([]byte, 3<<18)
			for i := range raw {
				raw[i] = byte(rng.Uint32())
			}
			return []byte(base64.StdEncoding.EncodeToString(raw)) // 1 MiB
		}
		for f := range 10 {
			if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("data%d.txt", f)), oneMB(), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		s := newStore(b, Options{})
		a := newAgent(b, s, root)
		a.bash("true") // the first checkpoint stores the workspace once
		base := objectsSize(b, s)
		var changed, compressed int64
		b.StartTimer()
		for i := range 100 {
			data := oneMB()
			a.call(nil, func() {
				if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("data%d.txt", i%10)), data, 0o644); err != nil {
					b.Fatal(err)
				}
			})
			changed += int64(len(data))
			compressed += zlibSize(data)
		}
		b.StopTimer()
		grown := objectsSize(b, s) - base
		b.ReportMetric(float64(changed)/(1<<20), "changed-MiB")
		b.ReportMetric(float64(compressed)/(1<<20), "changed-zlib-MiB")
		b.ReportMetric(float64(grown)/(1<<20), "store-grew-MiB")
		b.ReportMetric(float64(grown)/float64(compressed), "grew/zlib")
	}
}

func zlibSize(data []byte) int64 {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(data)
	w.Close()
	return int64(buf.Len())
}
