package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// A pending bash call: the Approve action is a plain edit; once it arrives
// the command runs in the document's directory and its output replaces the
// placeholder (corpus 01, with a harmless command).
func TestApproveEditRunsTheCommand(t *testing.T) {
	s := start(t, sessionOptions{})
	doc := strings.Replace(corpus(t, "01-pending-bash.chat"), `"command":"go test ./..."`, `"command":"pwd; echo approved-run"`, 1)
	uri := s.open("approve.chat", doc)
	s.waitDiagnostic(uri, "approval pending")

	var titles []string
	for _, a := range s.codeActions(uri, "status=pending") {
		titles = append(titles, a.Title)
	}
	joined := strings.Join(titles, "\n")
	for _, want := range []string{"Approve bash: $ pwd; echo approved-run  # running tests", "Reject bash", "Approve all 1 pending", "Reject all 1 pending", "Always allow bash("} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing code action %q in:\n%s", want, joined)
		}
	}
	if strings.Contains(s.c.Doc(uri).Text, "approved-run\n") {
		t.Fatal("nothing may run before the approval")
	}
	s.applyAction(uri, "status=pending", "Approve bash")
	s.waitText(uri, "approved-run", s.ws)
	text := s.c.Doc(uri).Text
	if strings.Contains(text, "status=") {
		t.Errorf("the placeholder must be replaced by the result:\n%s", text)
	}
	if n := strings.Count(text, "approved-run\n```"); n != 1 {
		t.Errorf("the result must be written exactly once, found %d times:\n%s", n, text)
	}
}

// Tool uses already in the file wait; chatls.advance categorizes them in
// call order in the last You message; read and write run, bash waits (corpus 02).
func TestAdvanceCategorizesAndRunsApprovedCalls(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("parallel.chat", corpus(t, "02-parallel-unanswered.chat"))
	s.settle(uri)
	before := s.c.Doc(uri).Text
	for _, e := range s.c.Events() {
		if e.Kind == "applyEdit" {
			t.Fatalf("opening must not edit: %+v", e)
		}
	}
	s.advance(uri)
	s.waitText(uri, "File not found: config/app.toml", "Successfully wrote 8 bytes to NOTES.md")
	text := s.c.Doc(uri).Text
	if !strings.HasPrefix(text, before[:strings.LastIndex(before, "@You:")]) {
		t.Error("the conversation before the last You message must be untouched")
	}
	r, b, w := strings.Index(text, "`call_r1`\n\n```"), strings.Index(text, "`call_b2`"), strings.LastIndex(text, "`call_w3`")
	if !(r < b && b < w) {
		t.Errorf("results must follow call order:\n%s", text)
	}
	if !strings.Contains(text, "**Tool Result:** `call_b2`\n\n```flemma:tool status=pending\n```") {
		t.Errorf("bash must wait with a pending placeholder:\n%s", text)
	}
	if data, err := os.ReadFile(filepath.Join(s.ws, "NOTES.md")); err != nil || string(data) != "# Notes\n" {
		t.Errorf("write must create NOTES.md: %q %v", data, err)
	}
	if exists(filepath.Join(s.ws, "build")) {
		t.Error("unexpected build dir")
	}
}

// A response streamed in after open is categorized by autopilot once its
// final @You: arrives, without chatls.advance.
func TestAutopilotCategorizesStreamedResponse(t *testing.T) {
	s := start(t, sessionOptions{})
	full := corpus(t, "02-parallel-unanswered.chat")
	cut := strings.Index(full, "@Assistant:")
	uri := s.open("stream.chat", full[:cut])
	s.settle(uri)
	// The model's answer streams in, in chunks; the Assistant message is not
	// complete until the trailing @You: arrives.
	rest := full[cut:]
	last := strings.LastIndex(rest, "@You:")
	for _, chunk := range []string{rest[:40], rest[40:last]} {
		end := s.c.Doc(uri).Text
		if err := appendText(s, uri, end, chunk); err != nil {
			t.Fatal(err)
		}
	}
	s.settle(uri)
	if strings.Contains(s.c.Doc(uri).Text, "Tool Result") {
		t.Fatal("an incomplete Assistant message must not be categorized")
	}
	if err := appendText(s, uri, s.c.Doc(uri).Text, rest[last:]); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "File not found: config/app.toml", "Successfully wrote 8 bytes to NOTES.md", "`call_b2`\n\n```flemma:tool status=pending")
}

func appendText(s *session, uri, current, chunk string) error {
	pos := endPosition(current)
	return s.c.Change(s.ctx, uri, []lspclient.TextEdit{{Range: lspclient.Range{Start: pos, End: pos}, NewText: chunk}})
}

// endPosition is the LSP position after the last character (ASCII text).
func endPosition(text string) lspclient.Position {
	line := strings.Count(text, "\n")
	col := len(text) - (strings.LastIndex(text, "\n") + 1)
	return lspclient.Position{Line: line, Character: col}
}

// Aborted, user-filled and rejected blocks get their fixed texts on advance
// and nothing runs (corpus 09, 13, 14).
func TestAdvanceResolvesWithoutRunning(t *testing.T) {
	s := start(t, sessionOptions{})
	aborted := s.open("aborted.chat", corpus(t, "09-aborted.chat"))
	s.advance(aborted)
	s.waitText(aborted, "**Tool Result:** `toolu_du` (error)\n\n```\nResponse interrupted by the user.\n```", "**Tool Result:** `toolu_un` (error)\n\n```\nResponse interrupted by the user.\n```")

	filled := s.open("filled.chat", corpus(t, "13-user-filled.chat"))
	s.advance(filled)
	s.waitText(filled, "**Tool Result:** `toolu_ssh`\n\n```\n 10:42:01 up 12 days", "**Tool Result:** `toolu_ssh2`\n\n```\nI pasted this myself: / is 41% full.\n```")

	rejected := s.open("rejected.chat", corpus(t, "14-rejected.chat"))
	s.advance(rejected)
	s.waitText(rejected,
		"`toolu_rm` (error)\n\n```\nNot my home directory, please.\n```",
		"`toolu_rm2` (error)\n\n```\nThis tool has been rejected by the user.\n```",
		"`toolu_rm3` (error)\n\n```\nThe tool was denied by a policy.\n```")
}

// The CRLF corpus document stays CRLF through the server's edits, in every
// position encoding.
func TestCRLFKeptInEveryEncoding(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8", "utf-32"} {
		t.Run(enc, func(t *testing.T) {
			s := start(t, sessionOptions{Options: lspclient.Options{Encoding: enc}})
			doc := corpus(t, "11-crlf-unicode.chat")
			uri := s.open("crlf.chat", doc)
			s.waitDiagnostic(uri, "approval pending")
			s.applyAction(uri, "status=pending", "Reject bash")
			s.waitText(uri, "This tool has been rejected by the user.")
			text := s.c.Doc(uri).Text
			if strings.Count(text, "\n") != strings.Count(text, "\r\n") {
				t.Errorf("a bare LF was written into a CRLF document:\n%q", text)
			}
			if !strings.Contains(text, "**Tool Result:** `toolu_crlf` (error)\r\n\r\n```\r\nThis tool has been rejected by the user.\r\n```") {
				t.Errorf("unexpected result block:\n%q", text)
			}
		})
	}
}

// chatls.advance without arguments (Helix's command picker) advances every
// open document.
func TestAdvanceWithoutArgumentsCoversEveryDocument(t *testing.T) {
	s := start(t, sessionOptions{})
	a := s.open("a.chat", corpus(t, "09-aborted.chat"))
	b := s.open("b.chat", corpus(t, "14-rejected.chat"))
	var out map[string]any
	if err := s.c.Call(s.ctx, "workspace/executeCommand", map[string]any{"command": "chatls.advance"}, &out); err != nil {
		t.Fatal(err)
	}
	s.waitText(a, "Response interrupted by the user.")
	s.waitText(b, "This tool has been rejected by the user.")
}

// An input the tool's schema rejects gets its error result at once — no
// placeholder, no question to the user — so the model can correct itself
// (SPEC §5), and the chain goes on.
func TestInvalidInputIsAnsweredAtOnce(t *testing.T) {
	s := start(t, sessionOptions{})
	doc := "@You:\ngo\n\n@Assistant:\n**Tool Use:** `read` (`toolu_bad`)\n\n```json\n{\"path\": 42}\n```\n\n@You:\n"
	uri := s.open("invalid.chat", doc)
	s.advance(uri)
	s.waitText(uri, "**Tool Result:** `toolu_bad` (error)\n\n```\nInvalid input for read:")
	if text := s.c.Doc(uri).Text; strings.Contains(text, "status=") {
		t.Fatalf("a placeholder was inserted:\n%s", text)
	}
}
