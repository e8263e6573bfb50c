package session

import (
	"testing"
	"time"

	"github.com/chatls/chatls/provider"
)

// The lens adds the share of the model's window the request used (SPEC
// §11), and says nothing of it when the window is unknown.
func TestAnswerLensShowsTheContextShare(t *testing.T) {
	for _, c := range []struct {
		window int
		want   string
	}{
		{200000, "claude-sonnet-4-6 · 126.0k in (100.0k cached) · 63% of 200k · 850 out · 4.2 s"},
		{0, "claude-sonnet-4-6 · 126.0k in (100.0k cached) · 850 out · 4.2 s"},
	} {
		a := &answerRecord{model: "claude-sonnet-4-6", outcome: "ok", duration: 4200 * time.Millisecond, window: c.window,
			usage: provider.Usage{InputTokens: 26000, CacheReadTokens: 100000, OutputTokens: 850}}
		if got := a.lensTitle(); got != c.want {
			t.Errorf("window %d: lens %q, want %q", c.window, got, c.want)
		}
	}
}
