package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `@./file` references are resolved against the document's directory; the
// missing ones get a warning on the reference, the present ones nothing.
func TestMissingFileReferencesAreFlagged(t *testing.T) {
	s := start(t, sessionOptions{})
	sub := filepath.Join(s.ws, "chats")
	if err := os.MkdirAll(filepath.Join(sub, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(sub, "notes", "present.md"), filepath.Join(s.ws, "top.md"), filepath.Join(sub, "my notes.md")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// present.md and ../top.md exist relative to chats/; missing.md does not,
	// and top.md beside the document does not either. As in Flemma, paths
	// are URL-decoded and a `;type=` suffix is not part of the path.
	uri := s.open(filepath.Join("chats", "refs.chat"), "@You:\nCompare @./notes/present.md, @../top.md, @./notes/missing.md and @./top.md.\n"+
		"Also @./my%20notes.md;type=text/markdown and @./gone%20too.md;type=text/plain.\n")
	d := s.waitDiagnostic(uri, "File not found: ./notes/missing.md")
	if d.Severity != 2 || d.Code != "missing-file-reference" || d.Source != "chatls" {
		t.Errorf("want a chatls warning with code missing-file-reference, got %+v", d)
	}
	pos, err := s.c.PositionOf(uri, "@./notes/missing.md")
	if err != nil {
		t.Fatal(err)
	}
	if d.Range.Start != pos || d.Range.End.Character != pos.Character+len("@./notes/missing.md") {
		t.Errorf("the diagnostic must cover the reference: %+v, reference at %+v", d.Range, pos)
	}
	var flagged []string
	for _, d := range s.c.Diagnostics(uri) {
		if d.Code == "missing-file-reference" {
			flagged = append(flagged, d.Message)
		}
	}
	if want := "File not found: ./notes/missing.md|File not found: ./top.md|File not found: ./gone too.md"; strings.Join(flagged, "|") != want {
		t.Errorf("flagged %q, want %q", flagged, want)
	}
}

// The hover names the decision with the rule, file and line that made it.
func TestHoverShowsDecidingRuleWithFileAndLine(t *testing.T) {
	ws := t.TempDir()
	config := filepath.Join(ws, ".chatls.toml") // read when the server starts
	if err := os.WriteFile(config, []byte("[tools]\ndeny = [\"bash(rm *)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, sessionOptions{ws: ws})
	uri := s.open("deny.chat", surfaceDoc(pendingResult("d1"),
		[3]string{"bash", "d1", `{"command":"rm -rf build","timeout":null}`}))
	s.settle(uri)
	h := s.hover(uri, "`bash` (`d1`)")
	if want := "**Decision:** deny — rule `bash(rm *)` (" + config + ":2)"; !strings.Contains(h, want) {
		t.Errorf("hover must contain %q, got:\n%s", want, h)
	}
	if !strings.Contains(h, "```json\n{\n  \"command\": \"rm -rf build\",\n  \"timeout\": null\n}\n```") {
		t.Errorf("hover must show the input as pretty JSON, got:\n%s", h)
	}
	if !strings.Contains(h, "Execute a bash command") {
		t.Errorf("hover must show the tool's description, got:\n%s", h)
	}
}
