package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

type wireLens struct {
	Range   lspclient.Range `json:"range"`
	Command *struct {
		Title     string           `json:"title"`
		Command   string           `json:"command"`
		Arguments []map[string]any `json:"arguments"`
	} `json:"command"`
}

func (s *session) codeLenses(uri string) []wireLens {
	s.t.Helper()
	var lenses []wireLens
	if err := s.c.Call(s.ctx, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses); err != nil {
		s.t.Fatal(err)
	}
	return lenses
}

// run executes a lens's command as the editor does when it is clicked.
func (s *session) runLens(l wireLens) map[string]any {
	s.t.Helper()
	out, err := s.command(l.Command.Command, l.Command.Arguments[0])
	if err != nil {
		s.t.Fatalf("lens %s: %v", l.Command.Title, err)
	}
	return out
}

// Approve, Reject and Explain sit above each pending placeholder (and only
// there); clicking them approves (the tool runs), rejects, or explains.
func TestCodeLensesAbovePendingPlaceholders(t *testing.T) {
	s := start(t, sessionOptions{})
	doc := surfaceDoc(
		pendingResult("b1")+pendingResult("b2")+"\n**Tool Result:** `c3`\n\n```\n4\n```\n",
		[3]string{"bash", "b1", `{"command":"echo lens-approved","timeout":null}`},
		[3]string{"bash", "b2", `{"command":"echo never-run","timeout":null}`},
		[3]string{"calculator", "c3", `{"expression":"2 + 2"}`},
	)
	uri := s.open("lens.chat", doc)
	s.waitDiagnostic(uri, "approval pending")

	lenses := s.codeLenses(uri)
	var got []string
	byKey := map[string]wireLens{}
	for _, l := range lenses {
		if l.Command == nil || len(l.Command.Arguments) != 1 {
			t.Fatalf("a lens must carry a command with one argument object: %+v", l)
		}
		id, _ := l.Command.Arguments[0]["id"].(string)
		if l.Command.Arguments[0]["uri"] != uri {
			t.Errorf("lens %s %s: uri argument %v, want %s", l.Command.Title, id, l.Command.Arguments[0]["uri"], uri)
		}
		key := fmt.Sprintf("L%d %s %s %s", l.Range.Start.Line, l.Command.Title, l.Command.Command, id)
		got = append(got, key)
		byKey[l.Command.Title+" "+id] = l
	}
	b1, b2 := s.lineOf(uri, "**Tool Result:** `b1`"), s.lineOf(uri, "**Tool Result:** `b2`")
	want := []string{
		fmt.Sprintf("L%d Approve chatls.approve b1", b1), fmt.Sprintf("L%d Reject chatls.reject b1", b1), fmt.Sprintf("L%d Explain chatls.explain b1", b1),
		fmt.Sprintf("L%d Approve chatls.approve b2", b2), fmt.Sprintf("L%d Reject chatls.reject b2", b2), fmt.Sprintf("L%d Explain chatls.explain b2", b2),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("lenses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	explained := s.runLens(byKey["Explain b1"])
	if trace, _ := explained["trace"].(string); explained["decision"] != "require_approval" || !strings.HasPrefix(trace, "require_approval\n") {
		t.Errorf("Explain must return the decision trace, got %v", explained)
	}
	if strings.Contains(s.c.Doc(uri).Text, "lens-approved\n") {
		t.Fatal("nothing may run before the approval")
	}
	s.runLens(byKey["Approve b1"])
	s.waitText(uri, "**Tool Result:** `b1`\n\n```\nlens-approved\n```")
	s.runLens(byKey["Reject b2"])
	s.waitText(uri, "**Tool Result:** `b2` (error)\n\n```\nThis tool has been rejected by the user.\n```")
	if text := s.c.Doc(uri).Text; strings.Contains(text, "never-run\n```") {
		t.Errorf("a rejected call must not run:\n%s", text)
	}
	if left := s.codeLenses(uri); len(left) != 0 {
		t.Errorf("no pending placeholder is left, yet lenses remain: %+v", left)
	}
}
