package custom

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
)

// Settings as the user writes them end up as runnable tools; a broken entry
// fails alone; Close does not wait out grace periods for well-behaved sources.
func TestSettingsIntoRegistry(t *testing.T) {
	settings := config.Settings{Tools: config.Tools{
		Plugins: []config.Plugin{
			{Name: "wc", Path: wordcountBin},
			{Name: "broken", Path: "/nonexistent/plugin"},
		},
		MCPServers: map[string]config.MCPServer{"local": {Command: mcpBin}},
	}}
	set, reg := newSet(t)
	ch := set.Reconcile(ConfigFrom(settings))
	if got := strings.Join(ch.Started, " "); got != "plugin:wc plugin:broken mcp:local" {
		t.Errorf("started %s", got)
	}
	waitReady(t, reg)
	errs := reg.SourceErrors()
	if len(errs) != 1 || errs["plugin:broken"] == nil {
		t.Errorf("SourceErrors = %v, want only plugin:broken", errs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for name, input := range map[string]map[string]any{
		"wordcount":  {"text": "two words", "path": nil},
		"local:echo": {"text": "hi"},
	} {
		tool, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("%s not registered; have %v", name, reg.List())
			continue
		}
		if res := tool.Run(ctx, tools.Call{ID: "t1", Name: name, Input: input}, tools.Env{}); res.IsError {
			t.Errorf("%s: %+v", name, res)
		}
	}
	start := time.Now()
	if err := set.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
}
