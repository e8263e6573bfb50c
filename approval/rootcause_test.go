package approval

import (
	"context"
	"path/filepath"
	"testing"
)

// decideIn builds an engine for the user config and decides one call in
// the fixture's document.
func decideIn(t *testing.T, f fixture, user, tool string, input map[string]any) Verdict {
	t.Helper()
	e, err := NewEngine(f.sources(t, user, "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range input {
		if s, ok := v.(string); ok {
			input[k] = f.expand(s)
		}
	}
	return e.Decide(context.Background(), Call{ID: "t", Tool: tool, Input: input, DocPath: f.doc, WorkspaceRoot: f.root})
}

// Issue 41, root cause 3: tools.requireApproval = false is a catch-all, not
// a rule naming a dangerous tool, so it never approves one — and the trace
// has no step that approves.
func TestCatchAllNeverApprovesDangerousTools(t *testing.T) {
	f := newFixture(t)
	inputs := map[string]map[string]any{
		"delete":     {"path": "src/main.go", "recursive": false},
		"move":       {"source": "src/main.go", "destination": "src/x.go", "overwrite": false},
		"git_push":   {"path": ".", "remote": "origin", "branch": "main", "force": false},
		"git_commit": {"path": ".", "message": "m", "files": []any{"src/main.go"}},
	}
	for tool, in := range inputs {
		v := decideIn(t, f, "[tools]\nrequireApproval = false\n", tool, in)
		if v.Decision != RequireApproval {
			t.Errorf("%s with requireApproval = false: got %s, want require_approval\n%s", tool, v.Decision, v.Format())
		}
		for _, s := range v.Steps {
			if s.Decision == Approve {
				t.Errorf("%s: the trace has an approving step %s: %s", tool, s.Resolver, s.Reason)
			}
		}
		// A rule that names the tool still approves it.
		if v := decideIn(t, f, "[tools]\nrequireApproval = false\nautoApprove = [\""+tool+"\"]\n", tool, in); v.Decision != Approve {
			t.Errorf("%s named by a rule: got %s, want approve\n%s", tool, v.Decision, v.Format())
		}
	}
	// Other tools: the catch-all still approves.
	if v := decideIn(t, f, "[tools]\nrequireApproval = false\n", "calculator", map[string]any{"expression": "1"}); v.Decision != Approve {
		t.Errorf("calculator: got %s, want approve", v.Decision)
	}
}

// Issue 41, root cause 8: a web_fetch URL rule matches scheme, host, port
// and path parsed, never the URL as a string.
func TestWebFetchRulesMatchTheParsedURL(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		rule, url string
		want      Decision
	}{
		{"https://example.com/*", "https://example.com/", Approve},
		{"https://example.com/*", "https://example.com/docs/a?x=1", Approve},
		{"https://example.com/*", "https://EXAMPLE.com/docs", Approve},
		{"https://example.com/*", "https://example.com:443/docs", Approve},
		{"https://example.com/*", "https://example.com./docs", Approve},
		{"https://example.com/*", "https://example.com", Approve},
		{"https://example.com/*", "https://example.com.evil.net/", RequireApproval},
		{"https://example.com/*", "https://evil.net/?https://example.com/", RequireApproval},
		{"https://example.com/*", "https://evil.net/https://example.com/", RequireApproval},
		{"https://example.com/*", "https://example.com@evil.net/", RequireApproval},
		{"https://example.com/*", "https://example.com:x@evil.net/", RequireApproval},
		{"https://example.com/*", "https://user@example.com/", RequireApproval},
		{"https://example.com/*", "https://example.com:8443/", RequireApproval},
		{"https://example.com/*", "http://example.com/", RequireApproval},
		{"https://example.com/*", "https://evil.net#https://example.com/", RequireApproval},
		{"https://example.com/*", "https://evil.net\\@example.com/", RequireApproval},
		{"https://example.com/docs/*", "https://example.com/docs/../admin", RequireApproval},
		{"https://example.com/docs/*", "https://example.com/docs/%2e%2e/admin", RequireApproval},
		{"https://example.com/docs/*", "https://example.com/docs/a%2fb", Approve},
		{"https://example.com/docs/*", "https://example.com/%64ocs/x", RequireApproval},
		{"https://*.example.com/*", "https://api.example.com/v1", Approve},
		{"https://*.example.com/*", "https://example.com.evil.net/", RequireApproval},
		{"https://*.example.com/*", "https://evil.net/.example.com/", RequireApproval},
		{"example.com", "https://example.com/any?thing", Approve},
		{"example.com", "https://example.com.evil.net/", RequireApproval},
	}
	for _, c := range cases {
		v := decideIn(t, f, "[tools]\nautoApprove = [\"web_fetch(url="+c.rule+")\"]\n", "web_fetch", map[string]any{"url": c.url})
		if v.Decision != c.want {
			t.Errorf("rule %s, url %s: got %s, want %s", c.rule, c.url, v.Decision, c.want)
		}
	}
	// Deny rules err on the side of matching: parsed or as written.
	for _, u := range []string{"https://EVIL.net/x", "https://evil.net:443/", "https://a@evil.net/", "https://x.com/?https://evil.net/"} {
		v := decideIn(t, f, "[tools]\nautoApprove = [\"web_fetch\"]\ndeny = [\"web_fetch(url=*://evil.net/*)\", \"web_fetch(url=*https://evil.net/*)\"]\n", "web_fetch", map[string]any{"url": u})
		if v.Decision != Deny {
			t.Errorf("deny evil.net, url %s: got %s", u, v.Decision)
		}
	}
}

// Issue 41, root cause 9: with the document in the home directory, the
// home is in the writable set, but what runs later or configures chatls
// there still asks: editor settings, git's user configuration, shell
// start-up files, chatls's own config.
func TestHomeConfigurationAsksInsideTheWritableSet(t *testing.T) {
	f := newFixture(t)
	doc := filepath.Join(f.home, "notes.chat")
	e, err := NewEngine(Sources{User: f.settings(t, "user.toml", "[tools]\nautoApprove = [\"$standard\", \"bash(echo *)\", \"bash(cp *)\", \"bash(tee *)\"]\n"),
		UserFile: filepath.Join(f.home, ".config", "chatls", "config.toml"), DocPath: doc, Home: f.home, TempDir: f.tmp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	decide := func(tool string, in map[string]any) Verdict {
		return e.Decide(context.Background(), Call{ID: "h", Tool: tool, Input: in, DocPath: doc})
	}
	files := []string{
		".config/Code/User/settings.json", ".config/zed/settings.json", ".config/helix/config.toml",
		".config/nvim/init.lua", ".config/git/config", ".config/git/attributes", ".gitconfig", ".bashrc", ".profile",
		".zshrc", ".bash_profile", ".bash_login", ".bash_logout", ".zshenv", ".config/fish/config.fish",
		".config/chatls/config.toml", ".vimrc", ".emacs", ".emacs.d/init.el", ".config/VSCodium/User/settings.json",
		".config/Cursor/User/settings.json", ".ssh/authorized_keys",
	}
	for _, rel := range files {
		p := filepath.Join(f.home, rel)
		for _, c := range []struct {
			tool string
			in   map[string]any
		}{
			{"write", map[string]any{"path": p, "content": "x"}},
			{"write", map[string]any{"path": "~/" + rel, "content": "x"}},
			{"edit", map[string]any{"path": rel, "oldText": "a", "newText": "b"}},
			{"bash", map[string]any{"command": "echo x >> ~/" + rel}},
			{"bash", map[string]any{"command": "echo x | tee " + rel}},
			{"bash", map[string]any{"command": "cp notes.md " + p}},
		} {
			if v := decide(c.tool, c.in); v.Decision == Approve {
				t.Errorf("%s %v with the document in the home directory: approved\n%s", c.tool, c.in, v.Format())
			}
		}
	}
	// The rest of the home directory stays writable.
	if v := decide("write", map[string]any{"path": "notes.md", "content": "x"}); v.Decision != Approve {
		t.Errorf("write notes.md in the home directory: got %s\n%s", v.Decision, v.Format())
	}
	if v := decide("bash", map[string]any{"command": "echo x > notes.md"}); v.Decision != Approve {
		t.Errorf("echo x > notes.md in the home directory: got %s\n%s", v.Decision, v.Format())
	}
}

// Writing .git anywhere in the workspace asks, like .git/config: a planted
// src/.git file or commondir points git elsewhere, a hook runs.
func TestWritingGitAnywhereAsks(t *testing.T) {
	f := newFixture(t)
	user := "[tools]\nautoApprove = [\"$default\", \"bash(echo *)\", \"bash(cp *)\", \"bash(tee *)\", \"bash(cat *)\", \"mkdir\", \"copy\"]\n"
	for _, p := range []string{"src/.git", ".git/commondir", ".git/config.worktree", ".git/hooks/pre-commit", "src/.GIT/x", ".git/modules/m/config", ".git/info/attributes"} {
		for _, c := range []struct {
			tool string
			in   map[string]any
		}{
			{"write", map[string]any{"path": p, "content": "gitdir: /tmp/x"}},
			{"edit", map[string]any{"path": p, "oldText": "a", "newText": "b"}},
			{"mkdir", map[string]any{"path": p}},
			{"copy", map[string]any{"source": "src/main.go", "destination": p, "overwrite": true}},
			{"bash", map[string]any{"command": "echo gitdir: /tmp/x > " + p}},
			{"bash", map[string]any{"command": "cp src/main.go " + p}},
			{"bash", map[string]any{"command": "echo x | tee -a " + p}},
		} {
			if v := decideIn(t, f, user, c.tool, c.in); v.Decision == Approve {
				t.Errorf("%s %v: approved\n%s", c.tool, c.in, v.Format())
			}
		}
	}
	// Reading .git stays as it was: cat .git/HEAD is no secret.
	if v := decideIn(t, f, user, "bash", map[string]any{"command": "cat .git/HEAD"}); v.Decision != Approve {
		t.Errorf("cat .git/HEAD: got %s\n%s", v.Decision, v.Format())
	}
	if v := decideIn(t, f, user, "write", map[string]any{"path": "src/gitnotes.md", "content": "x"}); v.Decision != Approve {
		t.Errorf("write src/gitnotes.md: got %s", v.Decision)
	}
}

// Issue 41, root cause 10 (rules): a narrowing rule — deny or ask — matches
// with options interleaved: the command's non-option words must contain the
// rule's words in order after the program, and the rule's options must all
// be there in any order or spelling.
func TestNarrowingRulesMatchWithOptionsInterleaved(t *testing.T) {
	f := newFixture(t)
	cmds := []string{"make release", "make -j4 release", "make -j 4 release", "make -C . release", "make --jobs=4 release V=1",
		"make -k -s release", "make VAR=1 release", "env make -j4 release", "make -- release"}
	for _, decision := range []string{"deny", "ask"} {
		user := "[tools]\nautoApprove = [\"bash(make *)\", \"bash(env *)\"]\n[[tools.rules]]\nrule = \"bash(make release *)\"\ndecision = \"" + decision + "\"\n"
		want := Deny
		if decision == "ask" {
			want = RequireApproval
		}
		for _, c := range cmds {
			if v := decideIn(t, f, user, "bash", map[string]any{"command": c}); v.Decision != want {
				t.Errorf("%s rule make release *: %q got %s\n%s", decision, c, v.Decision, v.Format())
			}
		}
		if v := decideIn(t, f, user, "bash", map[string]any{"command": "make -j4 test"}); v.Decision != Approve {
			t.Errorf("%s rule make release *: make -j4 test got %s", decision, v.Decision)
		}
	}
}

// Rule examples are checked the way the rule matches: an ask rule like a
// deny rule (options interleaved), a URL rule parsed.
func TestRuleExamplesMatchLikeTheRule(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		toml string
		ok   bool
	}{
		{"rule = \"bash(make release *)\"\ndecision = \"ask\"\nmatch = [\"make -j4 release\"]\n", true},
		{"rule = \"bash(make release *)\"\ndecision = \"deny\"\nmatch = [\"make -C . release\"]\n", true},
		{"rule = \"web_fetch(url=https://example.com/*)\"\ndecision = \"approve\"\nmatch = [\"https://EXAMPLE.com:443/x\"]\nnotMatch = [\"https://example.com.evil.net/\", \"https://example.com@evil.net/\"]\n", true},
		{"rule = \"web_fetch(url=https://example.com/*)\"\ndecision = \"approve\"\nmatch = [\"https://example.com@evil.net/\"]\n", false},
	} {
		_, err := NewEngine(f.sources(t, "[[tools.rules]]\n"+c.toml, "", false, nil), nil)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok=%v", c.toml, err, c.ok)
		}
	}
}
