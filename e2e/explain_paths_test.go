package e2e

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Explain reads the same from the lens and from an editor's explain command:
// the Explain lens's command, run as an editor runs a clicked lens (the
// result dropped, the text shown as a message), and the request the
// clients' explain commands send ({uri, id, format: "markdown"}, the
// answer's markdown shown as a document) give one text for one call.
func TestExplainLensAndCommandShowTheSameText(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("explain-paths.chat", surfaceDoc(pendingResult("b1"),
		[3]string{"bash", "b1", `{"command":"echo same-text","timeout":null}`}))
	s.waitDiagnostic(uri, "approval pending")

	var lens *wireLens
	for _, l := range s.codeLenses(uri) {
		if l.Command != nil && l.Command.Title == "Explain" {
			lens = &l
		}
	}
	if lens == nil {
		t.Fatal("no Explain lens above the pending placeholder")
	}
	s.runLens(*lens)
	fromLens := s.waitMessage(1, "b1")

	out, err := s.command("chatls.explain", map[string]any{"uri": uri, "id": "b1", "format": "markdown"})
	if err != nil {
		t.Fatal(err)
	}
	fromCommand, _ := out["markdown"].(string)
	if fromCommand == "" {
		t.Fatalf("chatls.explain with format markdown answered no markdown: %v", out)
	}
	if diff := cmp.Diff(fromCommand, fromLens); diff != "" {
		t.Errorf("the lens shows another text than the explain command (-command +lens):\n%s", diff)
	}
}
