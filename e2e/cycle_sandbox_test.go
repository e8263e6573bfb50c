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

// With sandbox.enabled = true and no working bubblewrap, a bash call the
// policy approves asks instead; each call says it is unsandboxed (hint and
// hover), a plain approval fails (a failure to start is an error), and the
// approval "outside the sandbox" runs it (SPEC §5).
func TestRequiredSandboxFailsUnlessApprovedOutside(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools":   map[string]any{"autoApprove": []string{"$default", "bash(touch *)"}},
		"sandbox": map[string]any{"enabled": true, "bwrap": "/nonexistent/bwrap-unsandboxed"},
	}}})
	uri := s.open("unsandboxed.chat", revokeDoc)
	s.waitMessage(1, "chatls: the sandbox is unavailable here (bubblewrap not found (/nonexistent/bwrap-unsandboxed)", "bash calls now need a rule or your approval")
	s.settle(uri)
	var labels []string
	for _, h := range s.inlayHints(uri) {
		labels = append(labels, h.Label)
	}
	if len(labels) != 1 || !strings.HasPrefix(labels[0], "unsandboxed · bash: $ touch marker-a") {
		t.Errorf("the hint must say the call is unsandboxed: %q", labels)
	}
	if h := s.hover(uri, "touch marker-a"); !strings.Contains(h, "fails unless you approve it with sandbox=off") || !strings.Contains(h, "require_approval") {
		t.Errorf("hover:\n%s", h)
	}
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_m` (error)\n\n```\nSandbox unavailable, command not run: bubblewrap not found")
	if exists(filepath.Join(s.ws, "marker-a")) {
		t.Fatal("a plain approval ran the call without the sandbox sandbox.enabled = true requires")
	}

	doc := s.open("outside.chat", strings.Replace(revokeDoc, "marker-a", "marker-b", 1))
	s.settle(doc)
	s.applyAction(doc, "status=pending", "Approve bash outside the sandbox")
	s.waitText(doc, "**Tool Result:** `toolu_m`\n\n```\n(no output)\n```")
	if !exists(filepath.Join(s.ws, "marker-b")) {
		t.Fatal("the call approved outside the sandbox did not run")
	}
}
