package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// With sandbox.enabled, write refuses paths outside the writable set even
// when bubblewrap is missing: the refusal follows the setting, not the
// binary (audit: the missing binary switched the check off).
func TestWriteRefusalFollowsSandboxSettingWithoutBubblewrap(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"sandbox": map[string]any{"enabled": true, "bwrap": "/nonexistent/bwrap"},
	}}})
	outside := filepath.Join(t.TempDir(), "outside.txt") // not the workspace, the document's directory or chatls's TMPDIR
	input := fmt.Sprintf(`{"path":%q,"content":"escaped","label":null}`, outside)
	doc := strings.Replace(strings.Replace(revokeDoc, "`bash`", "`write`", 1), `{"command":"touch marker-a","timeout":null}`, input, 1)
	uri := s.open("sandbox-write.chat", doc)
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_m` (error)\n\n```\nRefusing to write ")
	if exists(outside) {
		t.Fatalf("write created %s outside the writable set with sandbox.enabled", outside)
	}
}
