// Package tooltest is what the tests of tools and of tools/builtin share.
// It imports neither: the tools package's own tests use it.
package tooltest

import (
	"encoding/json"
	"os"
	"testing"
)

// RequireSandbox skips t, saying why, when bubblewrap cannot start a
// sandbox (unavailable is tools.SandboxAvailable's answer; some containers
// forbid user namespaces). With CHATLS_REQUIRE_BWRAP=1 (set by .ci/run,
// which installs bubblewrap) it fails instead: there a sandbox test that
// does not run is a failure, not a skip.
func RequireSandbox(t testing.TB, unavailable error) {
	t.Helper()
	if unavailable != nil {
		if os.Getenv("CHATLS_REQUIRE_BWRAP") == "1" {
			t.Fatalf("CHATLS_REQUIRE_BWRAP=1 but bubblewrap cannot start a sandbox: %v", unavailable)
		}
		t.Skipf("sandbox tests need a working bubblewrap (apt install bubblewrap, as .ci/run does): %v", unavailable)
	}
}

// Decode turns a JSON literal into a tool input, as the document parser does.
func Decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test input %s: %v", s, err)
	}
	return m
}
