package approval

import (
	"context"
	"testing"

	"github.com/chatls/chatls/config"
)

// A rule names an MCP tool either way, and approves it under either name
// (Flemma 0.12 writes `server.tool`, 0.11 `server:tool`).
func TestRulesNameMCPToolsEitherWay(t *testing.T) {
	for _, rule := range []string{"slack:channels_list", "slack.channels_list"} {
		e, err := NewEngine(Sources{User: config.Settings{Tools: config.Tools{AutoApprove: []string{rule}}}, UserFile: "user.toml"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range []string{"slack:channels_list", "slack.channels_list"} {
			if v := e.Decide(context.Background(), Call{ID: "t1", Tool: tool, Input: map[string]any{}}); v.Decision != Approve {
				t.Errorf("rule %s, call %s: %s\n%s", rule, tool, v.Decision, v.Format())
			}
		}
		if v := e.Decide(context.Background(), Call{ID: "t1", Tool: "slack.other", Input: map[string]any{}}); v.Decision == Approve {
			t.Errorf("rule %s approved slack.other", rule)
		}
	}
}
