package session

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
)

// When the policy engine cannot be built, every call asks, the trace says
// why in a "config" step, and the user is told once per settings
// generation (not on every decision); new settings mean a new message.
// Configurations are validated before they are committed, so the failure
// is injected here.
func TestPolicyBuildErrorAsksAndIsShownOncePerGeneration(t *testing.T) {
	newEngine = func(approval.Sources, *zap.Logger) (*approval.Engine, error) {
		return nil, errors.New(`tools.autoApprove: unknown preset "$gone"`)
	}
	t.Cleanup(func() { newEngine = approval.NewEngine })
	ts := newTestSession(t, nil, "")
	d, _ := ts.open("broken.chat", pendingBash("toolu_p", "echo hi"))
	const shown = "chatls: the policy could not be built: "
	wantReason := `the policy could not be built: tools.autoApprove: unknown preset "$gone"`
	explain := func() approval.Verdict {
		doc := ts.s.Latest(d)
		return ts.s.Explain(d, doc, doc.ToolUse("toolu_p"))
	}
	for i := 0; i < 3; i++ {
		v := explain()
		if v.Decision != approval.RequireApproval || len(v.Steps) != 1 {
			t.Fatalf("explain = %+v", v)
		}
		step := v.Steps[0]
		if step.Resolver != approval.ConfigErrorResolver || step.Priority != 1000 || step.Decision != approval.RequireApproval || step.Reason != wantReason {
			t.Errorf("the trace step = %+v", step)
		}
	}
	messages := func() []string {
		ts.ed.mu.Lock()
		defer ts.ed.mu.Unlock()
		var out []string
		for _, m := range ts.ed.messages {
			if strings.HasPrefix(m, shown) {
				out = append(out, m)
			}
		}
		return out
	}
	if got := messages(); len(got) != 1 || !strings.Contains(got[0], `unknown preset "$gone"`) {
		t.Errorf("the error must be shown once for this generation, got %q", got)
	}

	// New settings (a new generation): shown again, once.
	ts.s.SetEditorSettings(json.RawMessage(`{"autopilot": true}`))
	// Nothing announces that the settings applied: decide until it shows.
	deadline := time.Now().Add(20 * time.Second)
	for len(messages()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the error was not shown again for the new settings: %q", messages())
		}
		explain()
		time.Sleep(20 * time.Millisecond)
	}
	if got := messages(); len(got) != 2 {
		t.Errorf("shown %d times, want twice (once per generation): %q", len(got), got)
	}
}
