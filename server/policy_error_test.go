package server

import (
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
	p := startInProcess(t, nil)
	uri := p.open("broken.chat", pendingBash("toolu_p", "echo hi"))
	const shown = "chatls: the policy could not be built: "
	wantReason := `the policy could not be built: tools.autoApprove: unknown preset "$gone"`
	for i := 0; i < 3; i++ {
		out, err := p.command("chatls.explain", map[string]any{"uri": uri, "id": "toolu_p"})
		if err != nil {
			t.Fatal(err)
		}
		steps, _ := out["steps"].([]any)
		if out["decision"] != "require_approval" || len(steps) != 1 {
			t.Fatalf("explain = %v", out)
		}
		step, _ := steps[0].(map[string]any)
		if step["resolver"] != approval.ConfigErrorResolver || step["priority"] != float64(1000) || step["decision"] != "require_approval" || step["reason"] != wantReason {
			t.Errorf("the trace step = %v", step)
		}
	}
	p.waitMessages(3, "# `bash` (`toolu_p`) asks for your approval")
	p.waitMessages(1, shown) // messages are sent concurrently: the order may vary
	if got := p.messages(shown); len(got) != 1 || !strings.Contains(got[0], `unknown preset "$gone"`) {
		t.Errorf("the error must be shown once for this generation, got %q", got)
	}

	// New settings (a new generation): shown again, once.
	if err := p.c.Notify(p.ctx, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"autopilot": true}}); err != nil {
		t.Fatal(err)
	}
	// Nothing announces that the settings applied: decide until it shows.
	deadline := time.Now().Add(20 * time.Second)
	for len(p.messages(shown)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the error was not shown again for the new settings: %q", p.messages(shown))
		}
		if _, err := p.command("chatls.explain", map[string]any{"uri": uri, "id": "toolu_p"}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
