package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// Opening, editing and advancing an untrusted document whose frontmatter
// approves bash and write, with an already approved placeholder, runs
// nothing (corpus 12). The approved placeholder waits with its diagnostic.
func TestUntrustedDocumentRunsNothing(t *testing.T) {
	for _, f := range []string{"/tmp/chatls-corpus-pwned-1", "/tmp/chatls-corpus-pwned-3"} {
		os.Remove(f)
	}
	s := start(t, sessionOptions{})
	uri := s.open("untrusted.chat", corpus(t, "12-untrusted-open.chat"))
	s.waitDiagnostic(uri, "approved before this session; approve again to run")
	if err := s.c.Replace(s.ctx, uri, "Tidy up.", "Tidy up, please."); err != nil {
		t.Fatal(err)
	}
	s.advance(uri)
	s.waitText(uri, "`toolu_evil1`\n\n```flemma:tool status=pending", "`toolu_evil2`\n\n```flemma:tool status=pending", "`toolu_evil3`\n\n```flemma:tool status=pending")
	s.advance(uri)
	s.settle(uri)
	for _, f := range []string{"/tmp/chatls-corpus-pwned-1", "/etc/chatls-corpus-pwned-2", "/tmp/chatls-corpus-pwned-3"} {
		if exists(f) {
			t.Errorf("%s was created: an untrusted document ran a tool", f)
		}
	}
}

// Frontmatter in a trusted workspace may widen approvals; outside it only
// its narrowing applies (corpus 07).
func TestFrontmatterWidensOnlyWhenTrusted(t *testing.T) {
	doc := corpus(t, "07-frontmatter-json.chat")
	for _, trusted := range []bool{false, true} {
		name := map[bool]string{false: "untrusted", true: "trusted"}[trusted]
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			os.MkdirAll(ws, 0o755)
			opts := sessionOptions{ws: ws}
			if trusted {
				opts.InitializationOptions = map[string]any{"trust": map[string]any{"workspaces": []string{ws, ws + "/**"}}}
			}
			s := start(t, opts)
			uri := s.open("fm.chat", doc)
			s.advance(uri)
			if trusted {
				s.waitText(uri, "`toolu_jw`\n\n```flemma:tool status=pending", "**Tool Result:** `toolu_jb`\n\n```\n")
			} else {
				s.waitText(uri, "`toolu_jw`\n\n```flemma:tool status=pending", "`toolu_jb`\n\n```flemma:tool status=pending")
			}
			if exists(filepath.Join(ws, "log.txt")) {
				t.Error("write was removed from the approvals: it must not run")
			}
		})
	}
}

const revokeDoc = "@You:\nmake a marker\n\n@Assistant:\n**Tool Use:** `bash` (`toolu_m`)\n\n```json\n{\"command\":\"touch marker-a\",\"timeout\":null}\n```\n\n@You:\n\n**Tool Result:** `toolu_m`\n\n```flemma:tool status=pending\n```\n"

// Editing a call's input after approval revokes the approval.
func TestInputEditAfterApprovalRevokes(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"autopilot": false}}})
	uri := s.open("revoke.chat", revokeDoc)
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	// The model's call changes after the approval (autopilot off: nothing ran yet).
	if err := s.c.Replace(s.ctx, uri, "touch marker-a", "touch marker-b"); err != nil {
		t.Fatal(err)
	}
	s.advance(uri)
	s.waitText(uri, "```flemma:tool status=pending")
	s.settle(uri)
	if exists(filepath.Join(s.ws, "marker-a")) || exists(filepath.Join(s.ws, "marker-b")) {
		t.Fatal("a revoked approval ran the tool")
	}
	// Approving again, for the new input, runs it.
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.advance(uri)
	s.waitText(uri, "**Tool Result:** `toolu_m`\n\n```\n(no output)\n```")
	if !exists(filepath.Join(s.ws, "marker-b")) || exists(filepath.Join(s.ws, "marker-a")) {
		t.Error("the re-approved call must run with its new input only")
	}
}

// A policy deny wins over the user's approval edit.
func TestPolicyDenyBeatsUserApproval(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"tools": map[string]any{"deny": []string{"bash(touch *)"}}}}})
	uri := s.open("deny.chat", revokeDoc)
	s.settle(uri)
	s.applyAction(uri, "status=pending", "Approve bash")
	s.waitText(uri, "**Tool Result:** `toolu_m` (error)\n\n```\nThe tool was denied by a policy.\n```")
	if exists(filepath.Join(s.ws, "marker-a")) {
		t.Fatal("a denied call ran")
	}
}

// Text written by the model cannot approve: a placeholder that arrives
// already approved is not a user approval.
func TestModelTextCannotApprove(t *testing.T) {
	s := start(t, sessionOptions{})
	head := "@You:\nhi\n\n"
	uri := s.open("model.chat", head)
	s.settle(uri)
	streamed := strings.Replace(revokeDoc[len("@You:\nmake a marker\n\n"):], "status=pending", "status=approved", 1)
	if err := appendText(s, uri, head, streamed); err != nil {
		t.Fatal(err)
	}
	s.waitDiagnostic(uri, "approve again to run")
	s.advance(uri)
	s.waitText(uri, "```flemma:tool status=pending")
	if exists(filepath.Join(s.ws, "marker-a")) {
		t.Fatal("model text approved a call")
	}
}

// A tool runs at most once per ID across kill -9 and restart: the journal
// turns the interrupted run into the fixed error result.
func TestAtMostOnceAcrossKill(t *testing.T) {
	base := t.TempDir()
	ws, state := filepath.Join(base, "ws"), filepath.Join(base, "state")
	os.MkdirAll(ws, 0o755)
	doc := strings.Replace(revokeDoc, "touch marker-a", "echo started >> runs.txt; sleep 30; echo finished >> runs.txt", 1)

	s := start(t, sessionOptions{ws: ws, state: state})
	uri := s.open("once.chat", doc)
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(ws, "runs.txt"), "started\n")
	// Save the document as the editor would, then the server dies hard.
	if err := os.WriteFile(filepath.Join(ws, "once.chat"), []byte(s.c.Doc(uri).Text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.c.Process().Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.c.Process().Wait()

	s2 := start(t, sessionOptions{ws: ws, state: state})
	saved, _ := os.ReadFile(filepath.Join(ws, "once.chat"))
	uri2 := s2.open("once.chat", string(saved))
	s2.settle(uri2)
	s2.advance(uri2)
	s2.waitText(uri2, "**Tool Result:** `toolu_m` (error)\n\n```\nchatls stopped while this tool was running; it was not run again.\n```")
	data, _ := os.ReadFile(filepath.Join(ws, "runs.txt"))
	if string(data) != "started\n" {
		t.Errorf("the tool must have run exactly once and been killed with the server; runs.txt = %q", data)
	}
}

// waitFile waits, on file-system events, until path holds exactly want.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	waitFileFor(t, path, fmt.Sprintf("contained %q", want), func(data []byte) bool { return string(data) == want })
}

// Without a writable state directory the journal cannot promise "at most
// once": approved tools are not run and say why.
func TestNoJournalNoExecution(t *testing.T) {
	base := t.TempDir()
	state := filepath.Join(base, "state-is-a-file")
	if err := os.WriteFile(state, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, sessionOptions{state: state})
	uri := s.open("nojournal.chat", revokeDoc)
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "`toolu_m` (error)\n\n```\nchatls cannot record tool executions")
	if exists(filepath.Join(s.ws, "marker-a")) {
		t.Fatal("a tool ran without the execution journal")
	}
}
