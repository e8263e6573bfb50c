package approval

import (
	"context"
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
