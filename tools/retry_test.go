package tools

import (
	"testing"
)

// retrySafeTool says what RetrySafer says.
type retrySafeTool struct {
	fakeTool
	safe bool
}

func (r retrySafeTool) RetrySafe(map[string]any) bool { return r.safe }

// The tool decides (RetrySafer); without it a built-in never retries, and
// other tools do when their MCP annotations say they only read.
func TestRetrySafe(t *testing.T) {
	for _, c := range []struct {
		tool Tool
		want bool
	}{
		{retrySafeTool{fakeTool{def: Definition{Name: "read", Source: "builtin"}}, true}, true},
		{retrySafeTool{fakeTool{def: Definition{Name: "git_branch", Source: "builtin"}}, false}, false},
		{fakeTool{def: Definition{Name: "bash", Source: "builtin", Annotations: map[string]any{"readOnlyHint": true}}}, false},
		{fakeTool{def: Definition{Name: "fs:read", Source: "mcp:fs", Annotations: map[string]any{"readOnlyHint": true}}}, true},
		{fakeTool{def: Definition{Name: "db:upsert", Source: "mcp:db", Annotations: map[string]any{"idempotentHint": true}}}, true},
		{fakeTool{def: Definition{Name: "slack:post", Source: "mcp:slack"}}, false},
		{fakeTool{def: Definition{Name: "read", Source: "plugin:x"}}, false},
	} {
		if got := RetrySafe(c.tool, nil); got != c.want {
			t.Errorf("%s (%s): %v", c.tool.Definition().Name, c.tool.Definition().Source, got)
		}
	}
}
