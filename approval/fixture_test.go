package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/config"
)

// fixture is a workspace, a home and a temp dir outside each other, with
// the symlinks the escape tests need.
type fixture struct {
	root, doc, home, tmp string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	base := canonicalPath(t.TempDir(), "/", "")
	f := fixture{root: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp")}
	f.doc = filepath.Join(f.root, "doc.chat")
	outside := filepath.Join(base, "outside", "sub")
	for _, d := range []string{f.root, f.home, f.tmp, filepath.Join(f.root, "src"), filepath.Join(f.home, "notes"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(f.root, "src", "main.go"), []byte("package main\n"), 0o644))
	must(os.WriteFile(f.doc, []byte("@You:\n"), 0o644))
	must(os.Symlink("/etc", filepath.Join(f.root, "link-etc")))
	must(os.Symlink(filepath.Join(f.home, ".bashrc"), filepath.Join(f.root, "sneaky.txt"))) // dangling
	must(os.Symlink(f.home, filepath.Join(f.root, "homelink")))
	// l/.. is outside the workspace for the kernel, inside for a lexical clean.
	must(os.Symlink(outside, filepath.Join(f.root, "l")))
	return f
}

// expand replaces {root}, {home}, {tmp} in test text.
func (f fixture) expand(s string) string {
	return strings.NewReplacer("{root}", f.root, "{home}", f.home, "{tmp}", f.tmp).Replace(s)
}

func (f fixture) settings(t testing.TB, name, text string) config.Settings {
	t.Helper()
	if text == "" {
		return config.Settings{}
	}
	s, warns, err := config.ParseTOML(name, []byte(f.expand(text)))
	if err != nil {
		t.Fatalf("config %s: %v", name, err)
	}
	for _, w := range warns {
		t.Fatalf("config %s: unexpected warning %s", name, w)
	}
	return s
}

func (f fixture) sources(t testing.TB, user, ws string, trusted bool, fm []FrontmatterOp) Sources {
	t.Helper()
	if trusted {
		user = "[trust]\nworkspaces = [\"{root}\"]\n" + user
	}
	return Sources{
		User: f.settings(t, "user.toml", user), UserFile: "user.toml",
		Workspace: f.settings(t, ".chatls.toml", ws), WorkspaceFile: filepath.Join(f.root, ".chatls.toml"),
		WorkspaceRoot: f.root, DocPath: f.doc, Frontmatter: fm, Home: f.home, TempDir: f.tmp,
	}
}
