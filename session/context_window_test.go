package session

import (
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// An autopilot chain that reaches context.warnAt stops with the warning
// instead of sending (SPEC §11): the provider counted 850 of the model's
// 1,000 tokens, the result adds a little, so the request after the tool's result is not sent, and
// the user is told why and what to do.
func TestAutopilotStopsAtTheContextWarning(t *testing.T) {
	cfg := scriptConfig(t, "[tools]\nautoApprove = [\"calculator\"]\n",
		map[string]any{"text": "Let me add.", "usage": map[string]any{"InputTokens": 800, "OutputTokens": 50},
			"toolUses": []any{map[string]any{"id": "k1", "name": "calculator", "input": map[string]any{"expression": "2 * 21"}}}},
		map[string]any{"text": "It is 42."})
	cfg += "[providers.replay.models.script]\ncontextWindow = 1000\n"
	ts := newTestSession(t, map[string]any{"autopilot": true}, cfg)
	d, uri := ts.open("chain.chat", "@You:\nwhat is 2*21?\n")
	if err := ts.s.Send(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	stopped := func(m string) bool {
		return strings.Contains(m, "the autopilot stopped: The conversation uses about 86%")
	}
	ts.ed.waitFor(t, "the autopilot to stop at the warning", func() bool {
		ts.ed.mu.Lock()
		defer ts.ed.mu.Unlock()
		return slices.ContainsFunc(ts.ed.messages, stopped)
	})
	text := ts.ed.text(uri)
	if !strings.Contains(text, "**Tool Result:** `k1`\n```\n42\n```") || strings.Contains(text, "It is 42.") {
		t.Fatalf("the chain went on past the warning, or the result is missing:\n%s", text)
	}
	if st := ts.s.Status(d); st.Chain == nil || st.Chain.Turns != 1 || st.Sending {
		t.Errorf("status %+v, want one request and nothing sending", st)
	}
	// The `@You:` marker warns, with the same figure.
	doc := ts.s.Latest(d)
	i := slices.IndexFunc(ts.s.Diagnostics(d, doc, true), func(dg chatdoc.Diagnostic) bool { return dg.Code == "context" })
	if i < 0 {
		t.Fatalf("no context diagnostic: %+v", ts.s.Diagnostics(d, doc, true))
	}
	if dg := ts.s.Diagnostics(d, doc, true)[i]; doc.Slice(dg.Span.Start, dg.Span.End) != "@You:" || dg.Span.Start == 0 ||
		!strings.HasPrefix(dg.Message, "The conversation uses about 86% of the model's 1k-token context window") {
		t.Errorf("context diagnostic %+v", dg)
	}
	// The lens shows the share the request used.
	if lenses := ts.s.AnswerLenses(d, ts.s.Latest(d)); len(lenses) != 1 || !strings.Contains(lenses[0].Title, "· 80% of 1k ·") {
		t.Errorf("lenses %+v", lenses)
	}
}
