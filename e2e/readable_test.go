package e2e

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// chatls.explain and chatls.listTools give documents an editor renders:
// markdown with the trace `chatls policy check` prints, and a table of the
// tools with their inputs.
func TestExplainAndListToolsAsMarkdown(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"autopilot": false}}})
	uri := s.open("explain.chat", bashDoc("rm -rf build"))
	s.settle(uri)
	out, err := s.command("chatls.explain", map[string]any{"uri": uri, "id": "toolu_m"})
	if err != nil {
		t.Fatal(err)
	}
	md, _ := out["markdown"].(string)
	trace, _ := out["trace"].(string)
	for _, want := range []string{"# `bash` (`toolu_m`) asks for your approval", "```json\n{\"command\":\"rm -rf build\",\"timeout\":null}\n```", "```text\n" + trace + "```"} {
		if !strings.Contains(md, want) {
			t.Errorf("explain markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, `\n`) {
		t.Errorf("escaped newlines in the document:\n%s", md)
	}

	var list map[string]any
	if err := s.c.Call(s.ctx, "workspace/executeCommand", map[string]any{"command": "chatls.listTools",
		"arguments": []any{map[string]any{"uri": uri, "format": "markdown"}}}, &list); err != nil {
		t.Fatal(err)
	}
	doc, _ := list["markdown"].(string)
	for _, want := range []string{"| `bash` | builtin |", "## `read`", "- `path` (string, required)"} {
		if !strings.Contains(doc, want) {
			t.Errorf("tool list lacks %q:\n%s", want, doc)
		}
	}
}
