package e2e

import (
	"fmt"
	"strings"

	"github.com/chatls/chatls/internal/lspclient"
)

// Helpers for the editor-surface tests (e2e/surface_*_test.go).

// surfaceDoc is one Assistant message with the given calls (name, id, JSON
// input) and a You message holding results (already formatted).
func surfaceDoc(results string, calls ...[3]string) string {
	var b strings.Builder
	b.WriteString("@You:\ngo\n\n@Assistant:\n")
	for _, c := range calls {
		fmt.Fprintf(&b, "**Tool Use:** `%s` (`%s`)\n\n```json\n%s\n```\n\n", c[0], c[1], c[2])
	}
	b.WriteString("@You:\n" + results)
	return b.String()
}

// pendingResult is a pending placeholder in the seed form.
func pendingResult(id string) string {
	return "\n**Tool Result:** `" + id + "`\n\n```flemma:tool status=pending\n```\n"
}

type wireHint struct {
	Position lspclient.Position `json:"position"`
	Label    string             `json:"label"`
}

// inlayHints asks for the hints of the whole document.
func (s *session) inlayHints(uri string) []wireHint {
	s.t.Helper()
	text := s.c.Doc(uri).Text
	var hints []wireHint
	if err := s.c.Call(s.ctx, "textDocument/inlayHint", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        map[string]any{"start": lspclient.Position{}, "end": lspclient.Position{Line: strings.Count(text, "\n") + 1}},
	}, &hints); err != nil {
		s.t.Fatal(err)
	}
	return hints
}

// hover returns the hover's Markdown at the first occurrence of sub.
func (s *session) hover(uri, sub string) string {
	s.t.Helper()
	pos, err := s.c.PositionOf(uri, sub)
	if err != nil {
		s.t.Fatal(err)
	}
	var h *struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	if err := s.c.Call(s.ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos}, &h); err != nil {
		s.t.Fatal(err)
	}
	if h == nil {
		s.t.Fatalf("no hover at %q", sub)
	}
	return h.Contents.Value
}

// lineOf is the 0-based line of the first occurrence of sub.
func (s *session) lineOf(uri, sub string) int {
	s.t.Helper()
	pos, err := s.c.PositionOf(uri, sub)
	if err != nil {
		s.t.Fatal(err)
	}
	return pos.Line
}

// refreshes counts the workspace/inlayHint/refresh requests among events.
func refreshes(events []lspclient.Event) int {
	return countEvents(events, "refresh", "workspace/inlayHint/refresh")
}

// countEvents counts the events of a kind (and label, when not "").
func countEvents(events []lspclient.Event, kind, label string) int {
	n := 0
	for _, e := range events {
		if e.Kind == kind && (label == "" || e.Label == label) {
			n++
		}
	}
	return n
}
