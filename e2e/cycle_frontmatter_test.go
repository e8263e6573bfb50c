package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// A frontmatter that fails part-way (here after approving calculator) must
// not leave its approvals in force, even in a trusted workspace: the
// document's intent is unknown, so every call asks. The same document with
// the failing line removed runs the calculator.
func TestFailedFrontmatterAsksEvenWhenTrusted(t *testing.T) {
	const call = "@Assistant:\n**Tool Use:** `calculator` (`toolu_c1`)\n\n```json\n{\"expression\": \"6 * 7\"}\n```\n\n@You:\n"
	for _, tc := range []struct {
		name, lua, want string
	}{
		{"evaluates", `flemma.opt.tools.auto_approve:append("calculator")`,
			"**Tool Result:** `toolu_c1`\n\n```\n42\n```"},
		{"fails", "flemma.opt.tools.auto_approve:append(\"calculator\")\nerror(\"boom\")",
			"**Tool Result:** `toolu_c1`\n\n```flemma:tool status=pending\n```"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "ws")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			s := start(t, sessionOptions{ws: ws, Options: lspclient.Options{InitializationOptions: map[string]any{
				"trust": map[string]any{"workspaces": []string{ws, ws + "/**"}}}}})
			uri := s.open("fm.chat", "```lua\n"+tc.lua+"\n```\n"+call)
			s.advance(uri)
			s.waitText(uri, tc.want)
			if tc.name == "fails" {
				s.waitDiagnostic(uri, "boom")
				if strings.Contains(s.c.Doc(uri).Text, "42") {
					t.Error("the calculator ran although the frontmatter failed")
				}
			}
		})
	}
}
