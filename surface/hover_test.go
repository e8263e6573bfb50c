package surface

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chatls/chatls/tools"
)

func TestHoverMarkdown(t *testing.T) {
	start := time.Date(2025, 5, 1, 10, 42, 1, 0, time.UTC)
	end := start.Add(2300 * time.Millisecond)
	queued, nextDay := start.Add(-10*time.Second), start.Add(24*time.Hour)
	now = func() time.Time { return start.Add(3 * time.Second) }
	defer func() { now = time.Now }()

	tests := []struct {
		name string
		info HoverInfo
		want string
	}{
		{
			name: "finished bash with trace",
			info: HoverInfo{
				Tool:     tools.Definition{Name: "bash", Description: "Run a shell command.", Source: "builtin"},
				Known:    true,
				Input:    map[string]any{"command": "echo ```<hi>```", "timeout": nil},
				Decision: "require_approval — rule `bash` (~/.config/chatls/config.toml:3)",
				Trace:    "user config: pass\nworkspace: require_approval (rule bash, .chatls.toml:3)\n",
				Status:   "done",
				Started:  &start, Finished: &end,
			},
			want: "### `bash` · builtin\n\nRun a shell command.\n\n**Input**\n\n````json\n{\n  \"command\": \"echo ```<hi>```\",\n  \"timeout\": null\n}\n````\n\n" +
				"**Decision:** require_approval — rule `bash` (~/.config/chatls/config.toml:3)\n\n```text\nuser config: pass\nworkspace: require_approval (rule bash, .chatls.toml:3)\n```\n\n" +
				"**Status:** done · started 2025-05-01 10:42:01, finished 10:42:03 after 2.3s\n",
		},
		{
			name: "queued, then finished the next day",
			info: HoverInfo{
				Tool: tools.Definition{Name: "calculator"}, Known: true, Input: map[string]any{"expression": "1+1"},
				Status: "done", Queued: &queued, Started: &start, Finished: &nextDay,
			},
			want: "### `calculator`\n\n**Input**\n\n```json\n{\n  \"expression\": \"1+1\"\n}\n```\n\n" +
				"**Status:** done · queued 2025-05-01 10:41:51, started 2025-05-01 10:42:01, finished 2025-05-02 10:42:01 after 24h0m0s\n",
		},
		{
			name: "running after waiting for a slot",
			info: HoverInfo{Tool: tools.Definition{Name: "bash"}, Known: true, Input: map[string]any{}, Status: "running", Queued: &queued, Started: &start},
			want: "### `bash`\n\n**Input**\n\n```json\n{}\n```\n\n**Status:** running · queued 2025-05-01 10:41:51, started 2025-05-01 10:42:01, running for 3s\n",
		},
		{
			name: "finished, start not on record (older journal)",
			info: HoverInfo{Tool: tools.Definition{Name: "bash"}, Known: true, Input: map[string]any{}, Status: "done", Finished: &end},
			want: "### `bash`\n\n**Input**\n\n```json\n{}\n```\n\n**Status:** done · finished 2025-05-01 10:42:03\n",
		},
		{
			name: "waiting for a slot",
			info: HoverInfo{Tool: tools.Definition{Name: "bash"}, Known: true, Input: map[string]any{}, Status: "queued", Queued: &start},
			want: "### `bash`\n\n**Input**\n\n```json\n{}\n```\n\n**Status:** queued · queued 2025-05-01 10:42:01, waiting for a free slot for 3s\n",
		},
		{
			name: "running MCP tool with annotations",
			info: HoverInfo{
				Tool:        tools.Definition{Name: "slack:post", Source: "mcp:slack"},
				Known:       true,
				Input:       map[string]any{},
				Status:      "running",
				Started:     &start,
				Annotations: map[string]any{"readOnlyHint": false, "destructiveHint": true},
			},
			want: "### `slack:post` · mcp:slack\n\n**Input**\n\n```json\n{}\n```\n\n**Status:** running · started 2025-05-01 10:42:01, running for 3s\n\n" +
				"**Annotations** (shown, never trusted for approval): `destructiveHint`: true · `readOnlyHint`: false\n",
		},
		{
			name: "unknown tool with broken input",
			info: HoverInfo{Tool: tools.Definition{Name: "reed"}, RawInput: "{\"path\": \n"},
			want: "### `reed` · unknown tool\n\nNo registered tool has this name; the call cannot run.\n\n**Input**\n\n```json\n{\"path\":\n```\n",
		},
		{
			name: "unknown while tool sources load",
			info: HoverInfo{Tool: tools.Definition{Name: "slowtool"}, Loading: true, Input: map[string]any{"x": "y"}, Status: "no result yet"},
			want: "### `slowtool` · not known yet\n\nWaiting for tool definitions to load...\n\n**Input**\n\n```json\n{\n  \"x\": \"y\"\n}\n```\n\n**Status:** no result yet\n",
		},
		{
			name: "empty",
			info: HoverInfo{},
			want: "### `tool` · unknown tool\n\nNo registered tool has this name; the call cannot run.\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, HoverMarkdown(tt.info)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestHoverMarkdownInvalidUTF8(t *testing.T) {
	got := HoverMarkdown(HoverInfo{Tool: tools.Definition{Name: "x\xff"}, Known: true, RawInput: "\xfe", Status: "\xff"})
	if !strings.Contains(got, "\uFFFD") || strings.Contains(got, "\xff") {
		t.Errorf("invalid UTF-8 not replaced: %q", got)
	}
}
