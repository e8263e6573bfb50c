package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/fspath"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/builtin"
)

// Issue 41, root cause 10: under $standard, grep and find walk the
// workspace without showing a sensitive file's content (the policy's
// Hidden), say how many paths they skipped, and search one a rule names.
func TestGrepSkipsSensitiveFilesUnlessARuleNamesThem(t *testing.T) {
	ws, _ := fspath.Resolve(t.TempDir())
	home, _ := fspath.Resolve(t.TempDir())
	files := map[string]string{
		".env": "TOKEN=needle-env", ".env.local": "needle-local", "config/credentials.json": "needle-cred",
		".ssh/id_rsa": "needle-key", "src/id_ed25519": "needle-ed", ".netrc": "needle-netrc", "src/a.txt": "needle-public",
	}
	for f, data := range files {
		p := filepath.Join(ws, f)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data+"\n"), 0o644))
	}
	engine := func(approve ...string) *approval.Engine {
		e, err := approval.NewEngine(approval.Sources{User: config.Settings{Tools: config.Tools{AutoApprove: approve}},
			UserFile: "user.toml", WorkspaceRoot: ws, DocPath: filepath.Join(ws, "doc.chat"), Home: home}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	runner := tools.NewRunner(tools.NewRegistry(builtin.Tools(builtin.Options{})))
	run := func(e *approval.Engine, c tools.Call) string {
		res := runner.Run(context.Background(), c, tools.Env{Dir: ws, WorkspaceRoot: ws, Hidden: e.Hidden, TempDir: t.TempDir()})
		if res.IsError {
			t.Fatalf("%s: %s", c.Name, res.Text)
		}
		return res.Text
	}
	grep := tools.Call{ID: "g", Name: "grep", Input: map[string]any{"pattern": "needle", "path": nil, "glob": nil, "limit": nil}}
	find := tools.Call{ID: "f", Name: "find", Input: map[string]any{"pattern": "**", "path": nil, "limit": nil}}
	std := engine("$standard")
	out := run(std, grep)
	if !strings.Contains(out, "needle-public") {
		t.Errorf("grep under $standard lost the public file:\n%s", out)
	}
	for _, secret := range []string{"needle-env", "needle-local", "needle-cred", "needle-key", "needle-ed", "needle-netrc"} {
		if strings.Contains(out, secret) {
			t.Errorf("grep under $standard shows %s:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "[Skipped 6 paths the policy hides") {
		t.Errorf("grep does not say what it skipped:\n%s", out)
	}
	listing, note, _ := strings.Cut(run(std, find), "\n\n[Skipped")
	for _, name := range []string{".env", "credentials.json", "id_rsa", "id_ed25519", ".netrc"} {
		if strings.Contains(listing, name) {
			t.Errorf("find under $standard lists %s:\n%s", name, listing)
		}
	}
	if note == "" {
		t.Errorf("find does not say what it skipped:\n%s", listing)
	}
	// A rule naming .env lets grep search it (and only it).
	out = run(engine("$standard", "grep(.env)"), grep)
	if !strings.Contains(out, "needle-env") || strings.Contains(out, "needle-cred") {
		t.Errorf("grep with grep(.env):\n%s", out)
	}
}
