package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
