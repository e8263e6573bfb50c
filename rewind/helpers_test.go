package rewind

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// testCtx bounds every test's waits: a wedged git fails the test instead of
// hanging it.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// userEnv is the environment of the commands that play the user: the
// machine's own git config must not change what they do.
func userEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=user", "GIT_AUTHOR_EMAIL=user@example.com",
		"GIT_COMMITTER_NAME=user", "GIT_COMMITTER_EMAIL=user@example.com")
}

// sh runs a bash script in dir as the user or an agent's bash call would.
func sh(t testing.TB, dir, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", "set -e\n"+script)
	cmd.Dir = dir
	cmd.Env = userEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash -c %q: %v\n%s", script, err, out)
	}
	return string(out)
}

// newRepo is a git repository with files committed.
func newRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	sh(t, root, "git init -q -b main")
	writeFiles(t, root, files)
	sh(t, root, "git add -A && git commit -q -m init")
	return root
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newStore(t testing.TB, opt Options) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "checkpoints"), opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tree is everything under root but .git: path → "file 644 <content>",
// "file 755 …" or "link <target>", and "dir" for empty directories.
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case rel == ".":
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "link " + target
		case info.IsDir():
			if entries, _ := os.ReadDir(p); len(entries) == 0 {
				m[rel] = "dir"
			}
		default:
			data, _ := os.ReadFile(p)
			m[rel] = fmt.Sprintf("file %o %s", info.Mode().Perm()&0o111, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dotGitHash is every name, mode and byte under root/.git, and what
// `git status --porcelain` says: the user's repository as chatls must leave it.
func dotGitHash(t testing.TB, root string) string {
	t.Helper()
	h := sha256.New()
	var names []string
	_ = filepath.WalkDir(filepath.Join(root, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			names = append(names, p)
		}
		return err
	})
	sort.Strings(names)
	for _, p := range names {
		fi, _ := os.Lstat(p)
		fmt.Fprintf(h, "%s %v %d\n", p, fi.Mode(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			h.Write(data)
		}
	}
	// GIT_OPTIONAL_LOCKS=0: status must not refresh the index it is checking.
	h.Write([]byte(sh(t, root, "GIT_OPTIONAL_LOCKS=0 git status --porcelain --untracked-files=all --ignored")))
	return hex.EncodeToString(h.Sum(nil))
}

// storeHolds says whether any object in the store contains text.
func storeHolds(t testing.TB, s *Store, text string) bool {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", s.Dir(), "cat-file", "--batch-all-objects", "--batch")
	cmd.Env = userEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	return bytes.Contains(out, []byte(text))
}

// objectsSize is the bytes of the store's objects directory.
func objectsSize(t testing.TB, s *Store) int64 {
	t.Helper()
	var n int64
	_ = filepath.WalkDir(filepath.Join(s.Dir(), "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// agent is one document's calls: each runs between its Checkpoint and After.
type agent struct {
	t     testing.TB
	s     *Store
	root  string
	doc   string
	calls int
}

func newAgent(t testing.TB, s *Store, root string) *agent {
	return &agent{t: t, s: s, root: root, doc: filepath.Join(root, "task.chat")}
}

// bash is a bash call: the whole workspace is checkpointed around it.
func (a *agent) bash(script string) string { return a.call(nil, func() { sh(a.t, a.root, script) }) }

// write is a file tool's call: only the named paths are checkpointed.
func (a *agent) write(files map[string]string) string {
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	return a.call(paths, func() { writeFiles(a.t, a.root, files) })
}

func (a *agent) call(paths []string, run func()) string {
	a.t.Helper()
	a.calls++
	id := fmt.Sprintf("toolu_%02d", a.calls)
	sc := Scope{Root: a.root, Doc: a.doc, ID: id, Paths: paths}
	ctx := testCtx(a.t)
	if _, err := a.s.Checkpoint(ctx, sc); err != nil {
		a.t.Fatalf("Checkpoint %s: %v", id, err)
	}
	run()
	if err := a.s.After(ctx, sc); err != nil {
		a.t.Fatalf("After %s: %v", id, err)
	}
	return id
}

func (a *agent) plan(id string) *Plan {
	a.t.Helper()
	p, err := a.s.Plan(testCtx(a.t), a.doc, id)
	if err != nil {
		a.t.Fatalf("Plan %s: %v", id, err)
	}
	return p
}

func (a *agent) rewind(id string, opt ApplyOptions) Applied {
	a.t.Helper()
	applied, err := a.s.Apply(testCtx(a.t), a.plan(id), opt)
	if err != nil {
		a.t.Fatalf("Apply %s: %v", id, err)
	}
	return applied
}

// changes shows a plan as "kind path" lines, conflicts marked with "!".
func changes(root string, p *Plan) []string {
	var out []string
	for _, c := range p.Changes {
		rel, _ := filepath.Rel(root, c.Path)
		mark := ""
		if c.Conflict {
			mark = "!"
		}
		out = append(out, mark+c.Kind.String()+" "+rel)
	}
	return out
}

func uncovered(root string, us []Uncovered) []string {
	var out []string
	for _, u := range us {
		rel, _ := filepath.Rel(root, u.Path)
		out = append(out, rel+": "+strings.SplitN(u.Reason, " (", 2)[0])
	}
	return out
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}
