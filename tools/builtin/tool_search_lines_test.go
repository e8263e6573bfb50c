package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/internal/tooltest"
)

func TestGrepLineAnchorsAndCRLF(t *testing.T) {
	env := testEnv(t)
	testfs.Write(t, filepath.Join(env.Dir, "lf.txt"), "a\nfoo\nbar foo\n")
	testfs.Write(t, filepath.Join(env.Dir, "crlf.txt"), "a\r\nfoo\r\nbar foo\r\n")
	testfs.Write(t, filepath.Join(env.Dir, "first.txt"), "foo first\nfoo second\n")
	tests := []struct{ input, want string }{
		{`{"pattern":"^foo","path":"lf.txt"}`, "lf.txt:2:foo"},
		{`{"pattern":"foo$","path":"lf.txt"}`, "lf.txt:2:foo\nlf.txt:3:bar foo"},
		{`{"pattern":"^foo$","path":"lf.txt"}`, "lf.txt:2:foo"},
		{`{"pattern":"^foo","path":"crlf.txt"}`, "crlf.txt:2:foo"},
		{`{"pattern":"foo$","path":"crlf.txt"}`, "crlf.txt:2:foo\ncrlf.txt:3:bar foo"},
		{`{"pattern":"^bar foo$"}`, "crlf.txt:3:bar foo\nlf.txt:3:bar foo"},
		// \A and \z anchor each line, as ^ and $ do (grep matches line by line).
		{`{"pattern":"\\Afoo","path":"first.txt"}`, "first.txt:1:foo first\nfirst.txt:2:foo second"},
		{`{"pattern":"second\\z"}`, "first.txt:2:foo second"},
		{`{"pattern":"(?-m:^)foo s"}`, "first.txt:2:foo second"},
		{`{"pattern":"^$","path":"lf.txt"}`, "No matches found."},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			wantText(t, run(t, env, "grep", tooltest.Decode(t, tt.input)), tt.want)
		})
	}
}

func TestSearchSkipsOnlyVCSAndDependencyDirs(t *testing.T) {
	env := testEnv(t)
	for _, p := range []string{"go/build/build.go", "cmd/dist/main.go", "target/lib.rs", "dist/x.js", ".git/hooks/x.go", "node_modules/m/i.go", "vendor/v/v.go", ".venv/lib/x.go"} {
		testfs.Write(t, filepath.Join(env.Dir, p), "needle\n")
	}
	wantText(t, run(t, env, "grep", tooltest.Decode(t, `{"pattern":"needle"}`)),
		"cmd/dist/main.go:1:needle\ndist/x.js:1:needle\ngo/build/build.go:1:needle\ntarget/lib.rs:1:needle")
	wantText(t, run(t, env, "find", tooltest.Decode(t, `{"pattern":"*.go"}`)), "cmd/dist/main.go\ngo/build/build.go")
	wantText(t, run(t, env, "ls", tooltest.Decode(t, `{"path":".","maxDepth":2}`)),
		".git/\n.venv/\ncmd/\n  dist/\ndist/\n  x.js  7 B\ngo/\n  build/\nnode_modules/\ntarget/\n  lib.rs  7 B\nvendor/")
}

func TestSearchHonorsGitignore(t *testing.T) {
	env := testEnv(t)
	files := map[string]string{
		".gitignore":         "# outputs\n/target/\n*.log\nbuild/\n!keep.log\ndocs/**/*.gen.md\n",
		"target/a.rs":        "needle\n",
		"src/target/b.rs":    "needle\n", // /target/ is anchored to the top
		"app.log":            "needle\n",
		"keep.log":           "needle\n",
		"pkg/build/c.go":     "needle\n",
		"pkg/build.go":       "needle\n", // build/ matches directories only
		"pkg/.gitignore":     "local.txt\n!app.log\n",
		"pkg/local.txt":      "needle\n",
		"local.txt":          "needle\n",
		"pkg/app.log":        "needle\n", // re-included by the deeper file
		"docs/x/y.gen.md":    "needle\n",
		"docs/x/y.md":        "needle\n",
		"notrepo/ignored.go": "needle\n",
	}
	for p, c := range files {
		testfs.Write(t, filepath.Join(env.Dir, p), c)
	}
	// Outside a git work tree .gitignore means nothing (as for ripgrep).
	all := run(t, env, "grep", tooltest.Decode(t, `{"pattern":"needle","limit":100}`))
	if n := strings.Count(all.Text, "\n") + 1; n != 12 {
		t.Errorf("without .git: %d matches, want 12:\n%s", n, all.Text)
	}
	os.Mkdir(filepath.Join(env.Dir, ".git"), 0o755)
	want := "docs/x/y.md:1:needle\nkeep.log:1:needle\nlocal.txt:1:needle\nnotrepo/ignored.go:1:needle\npkg/app.log:1:needle\npkg/build.go:1:needle\nsrc/target/b.rs:1:needle"
	wantText(t, run(t, env, "grep", tooltest.Decode(t, `{"pattern":"needle"}`)), want)
	wantText(t, run(t, env, "find", tooltest.Decode(t, `{"pattern":"*"}`)),
		".gitignore\ndocs/x/y.md\nkeep.log\nlocal.txt\nnotrepo/ignored.go\npkg/.gitignore\npkg/app.log\npkg/build.go\nsrc/target/b.rs")
	// Searching below the top still applies the top's rules, and naming an
	// ignored directory searches it.
	wantText(t, run(t, env, "grep", tooltest.Decode(t, `{"pattern":"needle","path":"pkg"}`)), "pkg/app.log:1:needle\npkg/build.go:1:needle")
	wantText(t, run(t, env, "grep", tooltest.Decode(t, `{"pattern":"needle","path":"target"}`)), "target/a.rs:1:needle")
}

func TestGrepNamesFilesTooLargeToSearch(t *testing.T) {
	env := testEnv(t)
	testfs.Write(t, filepath.Join(env.Dir, "small.txt"), "needle\n")
	big := filepath.Join(env.Dir, "big.log")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("needle\n")
	f.Truncate(grepFileMax + 1) // sparse: no disk used
	f.Close()
	wantText(t, run(t, env, "grep", tooltest.Decode(t, `{"pattern":"needle"}`)),
		"small.txt:1:needle\n\n[Not searched: 1 file over 64.0 MB: big.log. Use bash to search them.]")
	wantText(t, run(t, env, "grep", tooltest.Decode(t, `{"pattern":"nothing"}`)),
		"No matches found.\n\n[Not searched: 1 file over 64.0 MB: big.log. Use bash to search them.]")
}

func TestSearchQuotesOddFileNames(t *testing.T) {
	env := testEnv(t)
	testfs.Write(t, filepath.Join(env.Dir, "two\nlines.txt"), "needle\n")
	testfs.Write(t, filepath.Join(env.Dir, "tab\there.txt"), "needle\n")
	testfs.Write(t, filepath.Join(env.Dir, "plain é.txt"), "needle\n")
	os.Symlink("two\nlines.txt", filepath.Join(env.Dir, "link"))
	wantText(t, run(t, env, "grep", tooltest.Decode(t, `{"pattern":"needle"}`)),
		"plain é.txt:1:needle\n\"tab\\there.txt\":1:needle\n\"two\\nlines.txt\":1:needle")
	wantText(t, run(t, env, "find", tooltest.Decode(t, `{"pattern":"*.txt"}`)),
		"\"tab\\there.txt\"\n\"two\\nlines.txt\"\nplain é.txt")
	wantText(t, run(t, env, "ls", tooltest.Decode(t, `{"path":"."}`)),
		"link  7 B -> \"two\\nlines.txt\"\nplain é.txt  7 B\n\"tab\\there.txt\"  7 B\n\"two\\nlines.txt\"  7 B")
	// The quoted form is the JSON spelling of the name, so it reads back.
	wantText(t, run(t, env, "read", tooltest.Decode(t, `{"path":"two\nlines.txt"}`)), "needle")
}

func TestReadRefusesNonRegularFiles(t *testing.T) {
	env := testEnv(t)
	fifo := filepath.Join(env.Dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	// No writer ever opens the FIFO: a blocking open would hang the call.
	wantText(t, run(t, env, "read", tooltest.Decode(t, `{"path":"pipe"}`)), "pipe is not a regular file (named pipe); read only reads files")
	wantText(t, run(t, env, "read", tooltest.Decode(t, `{"path":"/dev/zero"}`)), "/dev/zero is not a regular file (device); read only reads files")
	wantText(t, run(t, env, "edit", tooltest.Decode(t, `{"path":"pipe","oldText":"a","newText":"b"}`)), "pipe is not a regular file (named pipe); edit only edits files")
	wantText(t, run(t, env, "write", tooltest.Decode(t, `{"path":"pipe","content":"x"}`)), "pipe is not a regular file (named pipe); write only writes files")
	wantText(t, run(t, env, "grep", tooltest.Decode(t, `{"pattern":"x","path":"pipe"}`)), "No matches found.")
}
