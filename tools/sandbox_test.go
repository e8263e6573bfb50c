package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// TestProbeSandboxSeesChanges: SandboxAvailable remembers its answer,
// ProbeSandbox asks again (bubblewrap installed since) and updates it.
func TestProbeSandboxSeesChanges(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "bwrap")
	if err := SandboxAvailable(fake); err == nil || !strings.Contains(err.Error(), "bubblewrap not found") {
		t.Fatalf("missing: %v", err)
	}
	// A stand-in that runs what follows "--", as bwrap would.
	testfs.Write(t, fake, "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n")
	os.Chmod(fake, 0o755)
	if err := SandboxAvailable(fake); err == nil {
		t.Error("SandboxAvailable probed again; it should remember")
	}
	if err := ProbeSandbox(fake); err != nil {
		t.Fatalf("ProbeSandbox after install: %v", err)
	}
	if err := SandboxAvailable(fake); err != nil {
		t.Errorf("SandboxAvailable after ProbeSandbox: %v", err)
	}
	// And a broken one is reported with bubblewrap's own words.
	testfs.Write(t, fake, "#!/bin/sh\necho 'No permissions to create new namespace' >&2; exit 1\n")
	if err := ProbeSandbox(fake); err == nil || !strings.Contains(err.Error(), "bubblewrap cannot start a sandbox here: No permissions to create new namespace") {
		t.Errorf("broken: %v", err)
	}
}

// TestRequireBwrapFailsWithoutBubblewrap runs requireSandbox in a child test
// process with no bubblewrap on PATH: it must fail under
// CHATLS_REQUIRE_BWRAP=1 and skip without it.
func TestRequireBwrapFailsWithoutBubblewrap(t *testing.T) {
	if os.Getenv("CHATLS_TEST_REQUIRE_CHILD") == "1" {
		requireSandbox(t)
		return
	}
	for _, tc := range []struct{ require, want string }{{"1", "--- FAIL"}, {"", "--- SKIP"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRequireBwrapFailsWithoutBubblewrap$", "-test.v")
		cmd.Env = append(os.Environ(), "CHATLS_TEST_REQUIRE_CHILD=1", "PATH="+t.TempDir(), "CHATLS_REQUIRE_BWRAP="+tc.require)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("CHATLS_REQUIRE_BWRAP=%q: want %s in\n%s", tc.require, tc.want, out)
		}
	}
}

// The empty file masked files are bound to never goes missing once it
// exists, however many chatls make it at once (one's remove-then-create
// let another's bwrap find nothing to bind).
func TestEmptyFileNeverGoesMissing(t *testing.T) {
	dir := t.TempDir()
	p := makeEmptyFile(dir)
	if p != filepath.Join(dir, "empty") {
		t.Fatalf("made %s", p)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				os.Chmod(p, 0o644) // a damaged one is made again
				os.WriteFile(p, []byte("x"), 0o644)
				makeEmptyFile(dir)
			}
		}()
	}
	deadline := time.Now().Add(300 * time.Millisecond)
	missing := 0
	for time.Now().Before(deadline) {
		if _, err := os.Lstat(p); err != nil {
			missing++
		}
	}
	close(stop)
	wg.Wait()
	if missing > 0 {
		t.Fatalf("the empty file was missing %d times", missing)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Size() != 0 || !fi.Mode().IsRegular() {
		t.Fatalf("left %v, %v", fi, err)
	}
}
