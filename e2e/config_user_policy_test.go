package e2e

import (
	"path/filepath"
	"testing"
)

// The user's own policy switches take effect through the server (SPEC §4):
// tools.requireApproval = false turns the catch-all on, and a resolver
// program from the user config is consulted.
func TestUserRequireApprovalAndResolversTakeEffect(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{}, "[tools]\nrequireApproval = false\n", "")
	uri := s.open("catchall.chat", twoCalls("echo hi", "notes.txt"))
	if d, trace := s.explain(uri, "toolu_b"); d != "approve" {
		t.Errorf("requireApproval = false must approve a call nothing else decides, got %s\n%s", d, trace)
	}

	marker := filepath.Join(t.TempDir(), "resolver-ran")
	user := "[[resolvers]]\nname = \"mine\"\ncommand = \"" + resolverScript(t, marker) + "\"\n"
	r := startWithUserConfig(t, sessionOptions{}, user, "")
	uri = r.open("resolver.chat", twoCalls("echo hi", "notes.txt"))
	if d, trace := r.explain(uri, "toolu_b"); d != "approve" {
		t.Errorf("the user's resolver approves everything, got %s\n%s", d, trace)
	}
	if !exists(marker) {
		t.Error("the user's resolver program was not consulted")
	}
}
