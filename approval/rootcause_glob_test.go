package approval

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// secretNames are planted in the directory real bash and the real programs
// search; each is a sensitive name of SPEC §4.
var secretNames = []string{".env", ".env.local", "credentials", "config.credentials.json", "id_rsa", "id_ed25519.pub", ".netrc"}

func runIn(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Dir = dir
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1"}
	out, _ := c.CombinedOutput()
	return string(out)
}

// Issue 41, root cause 5: a glob, extglob, bracket class or brace
// expansion that real bash expands to a sensitive name asks — decided by
// intersecting the pattern with the sensitive name patterns, not by
// listing the directory. The listed patterns spell part of a secret's
// name; the random ones hold no * (with *, requireSpelling's documented
// gap applies), so for them the policy must ask whenever bash expands one
// to a secret.
func TestGlobsThatBashExpandsToSecretsAsk(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	f := newFixture(t)
	for _, n := range secretNames {
		if err := os.WriteFile(filepath.Join(f.root, n), []byte("SECRET\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := NewEngine(f.sources(t, "[tools]\nautoApprove = [\"bash(cat *)\", \"bash(printf *)\"]\n", "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(pat string) bool {
		out := runIn(t, f.root, "bash", "-O", "extglob", "-c", "printf '%s\\n' "+pat)
		hit := ""
		for _, line := range strings.Split(out, "\n") {
			for _, n := range secretNames {
				if line == n {
					hit = n
				}
			}
		}
		if hit == "" {
			return false
		}
		v := e.Decide(context.Background(), Call{ID: "g", Tool: "bash", Input: map[string]any{"command": "cat " + pat}, DocPath: f.doc, WorkspaceRoot: f.root})
		if v.Decision == Approve {
			t.Errorf("cat %s: bash expands it to %s, but the policy approved\n%s", pat, hit, v.Format())
		}
		return true
	}
	for _, pat := range []string{".[!x]nv", ".e*", ".??v", ".e{n,x}v", "@(.env|x)", "?(.env)", "+(.env)", "?redentials",
		"*redentials", "[c]redentials", "id_*", "i[d]_rsa", ".[n]etrc", ".n*", ".*", "config.?redentials.json", "c*s", ".env.*", "*ls", "i*"} {
		if !check(pat) {
			t.Errorf("%s: bash expanded it to no secret; the case tests nothing", pat)
		}
	}
	seed := uint64(rand.Uint32())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 41))
	// Mutations of a secret's name: characters replaced by ?, a bracket
	// class or a brace alternative, the whole wrapped in an extglob group.
	hits := 0
	for i := 0; i < 300; i++ {
		name := secretNames[rng.IntN(len(secretNames))]
		var b strings.Builder
		for _, c := range []byte(name) {
			switch r := rng.IntN(20); {
			case r < 4:
				b.WriteByte('?')
			case r < 6:
				b.WriteString("[" + string(c) + "q]")
			case r < 7:
				b.WriteString("[!q]")
			case r < 8:
				b.WriteString("[a-z.]")
			case r < 9:
				b.WriteString("{" + string(c) + ",z}")
			case r < 10:
				b.WriteString("?(" + string(c) + ")")
			default:
				b.WriteByte(c)
			}
		}
		pat := b.String()
		if rng.IntN(5) == 0 {
			pat = "@(" + pat + "|zz)"
		}
		if check(pat) {
			hits++
		}
	}
	if hits < 50 {
		t.Errorf("only %d of 300 mutated names reached a secret in bash", hits)
	}
	t.Logf("%d random patterns reached a secret", hits)
	// Ordinary globs stay approved.
	for _, cmd := range []string{"cat *.go", "cat src/*.go", "cat *", "cat src/m?in.go"} {
		if v := e.Decide(context.Background(), Call{ID: "g", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision != Approve {
			t.Errorf("%s: got %s\n%s", cmd, v.Decision, v.Format())
		}
	}
}

// The programs' own patterns: real grep --include, find -name, git grep
// and git log -p pathspecs that print a planted secret ask.
func TestProgramPatternsThatReachSecretsAsk(t *testing.T) {
	for _, p := range []string{"bash", "git", "grep", "find"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip("needs " + p)
		}
	}
	f := newFixture(t)
	const canary = "CANARY_5e1f"
	for _, n := range []string{".env", "config/credentials.json", "sub/.env.prod"} {
		p := filepath.Join(f.root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(canary+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runIn(t, f.root, "git", "init", "-q")
	runIn(t, f.root, "git", "add", "-A")
	runIn(t, f.root, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
	e, err := NewEngine(f.sources(t, "[tools]\nautoApprove = [\"bash(grep *)\", \"bash(git grep *)\", \"bash(git log *)\", \"bash(find *)\", \"bash(rg *)\"]\n", "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	leaked := 0
	for _, cmd := range []string{
		"grep -r --include='.e*' " + canary[:6] + " .",
		"grep -r --include=.e* " + canary[:6] + " .",
		"grep -r --include='?redentials.json' " + canary[:6] + " .",
		"git grep " + canary[:6] + " -- '.en*'",
		"git grep " + canary[:6] + " -- '*env*'",
		"git grep " + canary[:6] + " -- ':(glob)**/.e*'",
		"git log -p -- '*env'",
		"git log -p -- 'config/*s.json'",
		"find . -name '.e*' -exec grep -H " + canary[:6] + " {} +",
		"find . -path '*/.env*' -exec grep -H " + canary[:6] + " {} +",
		"rg -uu -g '.e*' " + canary[:6],
		"find . -regex '.*/\\.env' -exec grep -H " + canary[:6] + " {} +",
	} {
		if strings.HasPrefix(cmd, "rg") {
			if _, err := exec.LookPath("rg"); err != nil {
				continue
			}
		}
		out := runIn(t, f.root, "bash", "-c", cmd)
		if !strings.Contains(out, canary) {
			t.Errorf("%s printed no canary; the case tests nothing:\n%s", cmd, out)
			continue
		}
		leaked++
		v := e.Decide(context.Background(), Call{ID: "p", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
		if v.Decision == Approve {
			t.Errorf("%s prints a secret, but the policy approved\n%s", cmd, v.Format())
		}
	}
	if leaked < 8 {
		t.Errorf("only %d commands printed the canary", leaked)
	}
	// Exclusions and harmless patterns stay approved.
	for _, cmd := range []string{"git grep x -- ':!.env*' '*.go'", "grep -r --include='*.go' x .", "find . -name '*.go'"} {
		if v := e.Decide(context.Background(), Call{ID: "p", Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root}); v.Decision != Approve {
			t.Errorf("%s: got %s\n%s", cmd, v.Decision, v.Format())
		}
	}
}

// The grep and find tools: a glob that can match a sensitive name asks.
func TestSearchToolGlobsThatReachSecretsAsk(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		tool string
		in   map[string]any
		want Decision
	}{
		{"grep", map[string]any{"pattern": "x", "path": ".", "glob": ".e*", "limit": nil}, RequireApproval},
		{"grep", map[string]any{"pattern": "x", "path": ".", "glob": "**/?redentials.json", "limit": nil}, RequireApproval},
		{"grep", map[string]any{"pattern": "x", "path": ".", "glob": "id_*", "limit": nil}, RequireApproval},
		{"grep", map[string]any{"pattern": "x", "path": ".ssh", "glob": nil, "limit": nil}, RequireApproval},
		{"find", map[string]any{"pattern": "**/.env*", "path": ".", "limit": nil}, RequireApproval},
		{"grep", map[string]any{"pattern": "x", "path": ".", "glob": "*.go", "limit": nil}, Approve},
		{"find", map[string]any{"pattern": "**/*.go", "path": ".", "limit": nil}, Approve},
	} {
		if v := decideIn(t, f, "[tools]\nautoApprove = [\"$standard\"]\n", c.tool, c.in); v.Decision != c.want {
			t.Errorf("%s %v: got %s, want %s\n%s", c.tool, c.in, v.Decision, c.want, v.Format())
		}
	}
}
