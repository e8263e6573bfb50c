package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOverlay(t *testing.T) {
	yes, no, four := true, false, 4
	user := Settings{
		Tools: Tools{AutoApprove: []string{"$default"}, Deny: []string{"bash(rm *)"}, MaxConcurrent: &four,
			Presets:    map[string]Preset{"$mine": {Approve: []string{"read"}, Deny: []string{"bash"}}},
			MCPServers: map[string]MCPServer{"fs": {Command: "mcp-fs", Env: map[string]string{"A": "1"}}}},
		Autopilot: &yes, PlaceholderStyle: "suffix",
		Lines: map[string]int{"tools.deny=bash(rm *)": 3},
	}
	editor := Settings{
		Tools: Tools{AutoApprove: []string{}, Presets: map[string]Preset{"$mine": {Approve: []string{"grep"}}},
			MCPServers: map[string]MCPServer{"fs": {Env: map[string]string{"B": "2"}}, "web": {URL: "http://x"}}},
		Autopilot: &no,
	}
	got := Overlay(user, editor)
	want := Settings{
		Tools: Tools{AutoApprove: []string{}, Deny: []string{"bash(rm *)"}, MaxConcurrent: &four,
			Presets: map[string]Preset{"$mine": {Approve: []string{"grep"}, Deny: []string{"bash"}}},
			MCPServers: map[string]MCPServer{"fs": {Command: "mcp-fs", Env: map[string]string{"A": "1", "B": "2"}},
				"web": {URL: "http://x"}}},
		Autopilot: &no, PlaceholderStyle: "suffix",
		Lines: map[string]int{"tools.deny=bash(rm *)": 3},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Overlay (-want +got):\n%s", d)
	}
	if user.Tools.MCPServers["fs"].Env["B"] != "" || user.Tools.Presets["$mine"].Approve[0] != "read" {
		t.Fatal("Overlay changed a layer it was given")
	}
}
