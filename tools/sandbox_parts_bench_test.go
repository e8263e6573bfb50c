package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// BenchmarkSandboxParts tells where a sandboxed call's time goes. It starts
// bubblewrap directly (no runner, no supervisor, no scan) with a minimal
// command line, then with each group of the sandbox's arguments added alone,
// the whole command line chatls uses, and plain bash, all interleaved; each
// metric is the median of the paired differences from the minimal run (or,
// for the *-over-bash ones, from plain bash), so that load on a busy machine
// cancels out as far as it can:
//
//	go test ./tools -run '^$' -bench SandboxParts -benchtime 200x
func BenchmarkSandboxParts(b *testing.B) {
	requireSandbox(b)
	env := testEnv(b)
	for i := range 500 {
		testfs.Write(b, filepath.Join(env.Dir, fmt.Sprintf("pkg%d", i%20), fmt.Sprintf("f%d.go", i)), "package x\n")
	}
	testfs.Write(b, filepath.Join(env.Dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	testfs.Write(b, filepath.Join(env.Dir, ".env"), "K=v\n")
	testfs.Write(b, filepath.Join(env.Dir, "pkg3", "credentials.json"), "{}\n")
	dir, writable := env.Dir, writableDirs(env)
	home, _ := os.UserHomeDir()
	emptyFile()
	view := planSandboxView(writable, home)
	full := bwrapArgs(env, dir, writable, view, false)

	minimal := []string{"--ro-bind", "/", "/"}
	var binds, masks []string
	for _, w := range writable {
		binds = append(binds, "--bind", w, w)
	}
	for _, g := range view.readOnly {
		binds = append(binds, "--ro-bind", g, g)
	}
	for _, f := range view.maskFiles {
		masks = append(masks, "--ro-bind", emptyFile(), f)
	}
	for _, d := range view.maskDirs {
		masks = append(masks, "--tmpfs", d, "--remount-ro", d)
	}
	tail := []string{"--chdir", dir, "--", "bash", "-c", "true"}
	bwrap := func(groups ...[]string) []string {
		argv := append([]string{defaultBwrap}, minimal...)
		for _, g := range groups {
			argv = append(argv, g...)
		}
		return append(argv, tail...)
	}
	// --as-pid-1 (no bubblewrap reaper) is measured, not used: as process 1
	// the command would ignore a signal it sends itself (kill $$, a test
	// harness's SIGTERM to itself would hang until the timeout).
	var asPid1 []string
	for _, a := range full {
		asPid1 = append(asPid1, a)
		if a == "--unshare-pid" {
			asPid1 = append(asPid1, "--as-pid-1")
		}
	}
	runs := []struct {
		name string
		argv []string
	}{
		{"minimal", bwrap()},
		{"dev", bwrap([]string{"--dev", "/dev"})},
		{"pid-proc", bwrap([]string{"--unshare-pid", "--proc", "/proc"})},
		{"pid-proc-as-pid-1", bwrap([]string{"--unshare-pid", "--as-pid-1", "--proc", "/proc"})},
		{"net", bwrap([]string{"--unshare-net"})},
		{"ipc-uts", bwrap([]string{"--unshare-ipc", "--unshare-uts"})},
		{"writable-git", bwrap(binds)},
		{"masks", bwrap(binds, masks)},
		{"caps-session", bwrap([]string{"--cap-drop", "ALL", "--die-with-parent", "--new-session"})},
		{"full", append(append([]string{defaultBwrap}, full...), "bash", "-c", "true")},
		{"full-as-pid-1", append(append([]string{defaultBwrap}, asPid1...), "bash", "-c", "true")},
		{"bash", []string{"bash", "-c", "true"}},
	}
	environ := sandboxEnviron(env, os.Environ())
	times := make([][]time.Duration, len(runs))
	for b.Loop() {
		for i, r := range runs {
			cmd := exec.Command(r.argv[0], r.argv[1:]...)
			cmd.Env, cmd.Dir = environ, dir
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", r.name, err, out)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	paired := func(i, from int) float64 {
		d := make([]time.Duration, len(times[i]))
		for k := range d {
			d[k] = times[i][k] - times[from][k]
		}
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	plain := len(runs) - 1
	for i, r := range runs[1:plain] {
		b.ReportMetric(paired(i+1, 0), r.name+"-ms")
	}
	b.ReportMetric(paired(0, plain), "minimal-over-bash-ms")
	b.ReportMetric(paired(9, plain), "full-over-bash-ms")
	med := slices.Clone(times[plain])
	slices.Sort(med)
	b.ReportMetric(float64(med[len(med)/2].Microseconds())/1000, "bash-median-ms")
	b.ReportMetric(float64(len(view.maskFiles)+len(view.maskDirs)), "masks")
}
