package tools

import (
	"testing"

	"github.com/chatls/chatls/internal/tooltest"
)

func TestPreviewGenericAndTemplates(t *testing.T) {
	mcp := Definition{Name: "slack:channels_list", Source: "mcp:slack"}
	in := tooltest.Decode(t, `{"b":"v2","a":"v1","t":{"y":1,"x":2},"l":[1,2,3],"n":5,"ok":true,"z":null,"label":"listing"}`)
	want := `slack:channels_list: a="v1", b="v2", n=5, ok=true, z=null, l=[3 items], t={x, y}  # listing`
	if got := Preview(mcp, in, 0); got != want {
		t.Errorf("generic\n got %q\nwant %q", got, want)
	}
	if got := Preview(mcp, map[string]any{}, 0); got != "slack:channels_list" {
		t.Errorf("empty: %q", got)
	}
	mcp.PreviewTemplate = `#{{.channel}} ({{.limit}} messages)`
	if got := Preview(mcp, map[string]any{"channel": "general", "limit": 5.0}, 0); got != "slack:channels_list: #general (5 messages)" {
		t.Errorf("template: %q", got)
	}
	if got := Preview(mcp, map[string]any{"limit": 5.0}, 0); got != "slack:channels_list: # (5 messages)" {
		t.Errorf("template with missing key: %q", got)
	}
	mcp.PreviewTemplate = `{{.channel`
	if got := Preview(mcp, map[string]any{"channel": "general"}, 0); got != `slack:channels_list: channel="general"` {
		t.Errorf("broken template falls back: %q", got)
	}
	// A plugin tool named like a built-in pattern still gets the generic form.
	if got := Preview(Definition{Name: "deploy", Source: "plugin:ops"}, map[string]any{"env": "prod"}, 0); got != `deploy: env="prod"` {
		t.Errorf("plugin: %q", got)
	}
}
