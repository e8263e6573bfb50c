package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/internal/tooltest"
	"github.com/chatls/chatls/tools"
)

// searchTree builds a small project with the directories search must skip.
func searchTree(t *testing.T) tools.Env {
	t.Helper()
	env := testEnv(t)
	files := map[string]string{
		"main.go":                      "package main\n// TODO: wire flags\nfunc main() {}\n",
		"pkg/a/a.go":                   "package a\n// TODO a\n",
		"pkg/a/a_test.go":              "package a\n",
		"pkg/b/b_test.go":              "package b // TODO test\n",
		"README.md":                    "# TODO list\n",
		".git/config":                  "TODO in git\n",
		"node_modules/x/index.js":      "// TODO in deps\n",
		"vendor/v/v.go":                "// TODO vendored\n",
		"bin.dat":                      "TODO\x00binary",
		"src/deep/nested/file_test.go": "package nested\n",
	}
	for p, c := range files {
		testfs.Write(t, filepath.Join(env.Dir, p), c)
	}
	return env
}

func TestGrep(t *testing.T) {
	env := searchTree(t)
	tests := []struct{ input, want string }{
		{`{"pattern":"TODO"}`, "README.md:1:# TODO list\nmain.go:2:// TODO: wire flags\npkg/a/a.go:2:// TODO a\npkg/b/b_test.go:1:package b // TODO test"},
		{`{"pattern":"TODO","path":"pkg","glob":null,"limit":null,"label":"x"}`, "pkg/a/a.go:2:// TODO a\npkg/b/b_test.go:1:package b // TODO test"},
		{`{"pattern":"TODO","glob":"*.go"}`, "main.go:2:// TODO: wire flags\npkg/a/a.go:2:// TODO a\npkg/b/b_test.go:1:package b // TODO test"},
		{`{"pattern":"TODO","glob":"pkg/**/*_test.go"}`, "pkg/b/b_test.go:1:package b // TODO test"},
		{`{"pattern":"(?i)todo","path":"main.go"}`, "main.go:2:// TODO: wire flags"},
		{`{"pattern":"TODO","limit":2}`, "README.md:1:# TODO list\nmain.go:2:// TODO: wire flags\n\n[Match limit 2 reached. Use limit=4 for more, or refine the pattern.]"},
		{`{"pattern":"nothing here"}`, "No matches found."},
		{`{"pattern":"TODO","path":"node_modules"}`, "node_modules/x/index.js:1:// TODO in deps"},
		{`{"pattern":"(unclosed"}`, "Invalid regular expression: error parsing regexp: missing closing ): `(unclosed`"},
		{`{"pattern":"x","path":"nope"}`, "Path not found: nope"},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			wantText(t, run(t, env, "grep", tooltest.Decode(t, tt.input)), tt.want)
		})
	}
}

func TestGrepLongLinesAndManyFiles(t *testing.T) {
	env := testEnv(t)
	testfs.Write(t, filepath.Join(env.Dir, "long.txt"), "needle "+strings.Repeat("é", 600))
	for i := range 300 {
		testfs.Write(t, filepath.Join(env.Dir, "many", fmt.Sprintf("f%03d.txt", i)), "needle\n")
	}
	res := run(t, env, "grep", tooltest.Decode(t, `{"pattern":"needle","limit":1000}`))
	lines := strings.Split(res.Text, "\n")
	if len(lines) != 301 || !strings.HasSuffix(lines[0], "é… [truncated]") || lines[1] != "many/f000.txt:1:needle" || lines[300] != "many/f299.txt:1:needle" {
		t.Errorf("%d lines; first %.60q", len(lines), lines[0])
	}
}

func TestFind(t *testing.T) {
	env := searchTree(t)
	tests := []struct{ input, want string }{
		{`{"pattern":"*_test.go"}`, "pkg/a/a_test.go\npkg/b/b_test.go\nsrc/deep/nested/file_test.go"},
		{`{"pattern":"*_test.go","path":"pkg","limit":null}`, "pkg/a/a_test.go\npkg/b/b_test.go"},
		{`{"pattern":"src/**/*.go"}`, "src/deep/nested/file_test.go"},
		{`{"pattern":"**/a*.go","limit":1}`, "pkg/a/a.go\n\n[Result limit 1 reached (2 files match). Use limit=2 for more, or refine the pattern.]"},
		{`{"pattern":"Makefile","path":".","limit":10,"label":"looking for Makefile"}`, "No files found matching pattern Makefile"},
		{`{"pattern":"config"}`, "No files found matching pattern config"},
		{`{"pattern":"[","path":null}`, "Invalid glob: ["},
		{`{"pattern":"*","path":"main.go"}`, "Not a directory: main.go"},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			wantText(t, run(t, env, "find", tooltest.Decode(t, tt.input)), tt.want)
		})
	}
}

func TestLs(t *testing.T) {
	env := searchTree(t)
	os.Symlink("main.go", filepath.Join(env.Dir, "link.go"))
	tests := []struct{ input, want string }{
		{`{"path":"pkg"}`, "a/\nb/"},
		{`{"path":"pkg","maxDepth":2}`, "a/\n  a.go  20 B\n  a_test.go  10 B\nb/\n  b_test.go  23 B"},
		{`{"label":"listing root","path":".","maxDepth":1,"limit":null}`,
			".git/\nnode_modules/\npkg/\nsrc/\nvendor/\nbin.dat  11 B\nlink.go  48 B -> main.go\nmain.go  48 B\nREADME.md  12 B"},
		{`{"path":".","maxDepth":3,"limit":3}`, ".git/\nnode_modules/\npkg/\n\n[Entry limit 3 reached. Use limit=6 for more.]"},
		{`{"path":"nope"}`, "Directory not found: nope"},
		{`{"path":"main.go"}`, "Not a directory: main.go"},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			wantText(t, run(t, env, "ls", tooltest.Decode(t, tt.input)), tt.want)
		})
	}
	os.Mkdir(filepath.Join(env.Dir, "empty"), 0o755)
	wantText(t, run(t, env, "ls", tooltest.Decode(t, `{"path":"empty"}`)), "(empty directory)")
}
