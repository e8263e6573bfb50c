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
