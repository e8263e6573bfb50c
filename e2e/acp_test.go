package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/internal/testfs"
)

// External agents (SPEC §12) through the real binary, against the scripted
// agent of acp/testdata/agent (on @agentclientprotocol/sdk): its prompt's
// first word names the scenario.

// agentScript is the scripted agent; without node or its package the test
// skips, unless CHATLS_REQUIRE_ACP is set (CI installs them with
// acp/install-test-agents.sh).
func agentScript(t *testing.T) string {
	t.Helper()
	skip := func(why string) { skipACP(t, why) }
	if _, err := exec.LookPath("node"); err != nil {
		skip("node is not installed: the ACP tests run a scripted agent on Node")
	}
	dir, _ := filepath.Abs("../acp/testdata/agent")
	if _, err := os.Stat(filepath.Join(dir, "node_modules/@agentclientprotocol/sdk/package.json")); err != nil {
		skip("@agentclientprotocol/sdk is not installed: run acp/install-test-agents.sh")
	}
	return filepath.Join(dir, "agent.mjs")
}

// agentConfig is a user config whose provider is the scripted agent;
// extra is more TOML (the policy).
func agentConfig(t *testing.T, env map[string]string, extra string) string {
	t.Helper()
	var envs []string
	for k, v := range env {
		envs = append(envs, strconv.Quote(k)+" = "+strconv.Quote(v))
	}
	return "provider = \"agent\"\n[providers.agent]\ntype = \"acp\"\ncommand = [\"node\", " + strconv.Quote(agentScript(t)) +
		"]\nenv = {" + strings.Join(envs, ", ") + "}\n" + extra
}

// chatls send on an agent: streamed text and thinking, a read the policy
// allows (the agent's allow-once option), a read it denies (reject), an
// fs write through chatls's write tool, and an agent that exits mid-turn:
// the abort marker names why and the command fails.
func TestAgentCLISend(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	file := filepath.Join(dir, "a.chat")
	run := func(prompt, extra string) (int, string, string) {
		t.Helper()
		testfs.Write(t, file, "@You:\n"+prompt+"\n")
		code, _, stderr := runCLISend(t, dir, agentConfig(t, nil, extra), "a.chat")
		data, _ := os.ReadFile(file)
		return code, string(data), stderr
	}

	code, text, stderr := run("stream", "")
	if code != 0 || !strings.Contains(text, "@Assistant:\nHello, world.\n @You: not a role\n") ||
		!strings.Contains(text, "<thinking>\nThe user wants a greeting.\n</thinking>") || !strings.HasSuffix(text, "\n\n@You:\n\n") {
		t.Fatalf("stream: exit %d, stderr %s\n%s", code, stderr, text)
	}

	testfs.Write(t, notes, "hello world\nline2\nline3\n")
	code, text, stderr = run("read "+notes, "")
	if code != 0 || !strings.Contains(text, "**Tool Use:** `read` (`toolu_read_1`)") ||
		!strings.Contains(text, "**Tool Use:** `read` (`toolu_read_1`)\n```json\n") ||
		!strings.Contains(text, "**Tool Result:** `toolu_read_1`\n```\nhello world\nline2\n```") ||
		!strings.Contains(text, `The file starts with "hello world" (allow).`) {
		t.Fatalf("read allowed by the policy: exit %d, stderr %s\n%s", code, stderr, text)
	}

	code, text, stderr = run("read "+notes, "[tools]\ndeny = [\"read\"]\n")
	if code != 0 || !strings.Contains(text, "**Tool Result:** `toolu_read_1` (error)\n```\nThe user rejected reading the file.\n```") ||
		!strings.Contains(text, "I will not read it.") {
		t.Fatalf("read denied by the policy: exit %d, stderr %s\n%s", code, stderr, text)
	}

	// A document written spaced (a blank line after its tool headers) gets
	// the agent's answer spaced too, as a model's (SPEC §1 "Compact headers").
	spaced := "@You:\nfirst\n\n@Assistant:\n**Tool Use:** `bash` (`old_1`)\n\n```json\n{\"command\":\"true\"}\n```\n\n" +
		"@You:\n**Tool Result:** `old_1`\n\n```\n(no output)\n```\n\n"
	testfs.Write(t, file, spaced+"read "+notes+"\n")
	code, _, stderr = runCLISend(t, dir, agentConfig(t, nil, ""), "a.chat")
	data, _ := os.ReadFile(file)
	if text = string(data); code != 0 || !strings.Contains(text, "**Tool Use:** `read` (`toolu_read_1`)\n\n```json\n") ||
		!strings.Contains(text, "**Tool Result:** `toolu_read_1`\n\n```\nhello world\nline2\n```") {
		t.Fatalf("read in a spaced document: exit %d, stderr %s\n%s", code, stderr, text)
	}

	code, text, stderr = run("write "+notes, "")
	data, _ = os.ReadFile(notes)
	if code != 0 || string(data) != "hello ACP\nline2\nline3\n" || !strings.Contains(text, "-hello world\n+hello ACP") || !strings.Contains(text, "Edited.") {
		t.Fatalf("write: exit %d, stderr %s, notes %q\n%s", code, stderr, data, text)
	}

	code, text, stderr = run("exit", "")
	if code != 1 || !strings.Contains(text, "Starting…\n\n<!-- flemma:aborted: the agent exited (status 1): Error: the model is overloaded -->\n\n@You:\n") ||
		!strings.Contains(stderr, "the agent exited (status 1)") {
		t.Fatalf("exit: exit %d, stderr %s\n%s", code, stderr, text)
	}
}

// In an editor: the agent's permission becomes a pending placeholder the
// user approves by editing it; the answer goes back as the agent's
// allow-once option and the result replaces the placeholder. Cancel is
// session/cancel with the abort marker. An agent that exits mid-turn ends
// the answer with a marker, and the next send starts it again. Closing the
// document ends the agent's process.
func TestAgentEditorSession(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	s := start(t, sessionOptions{userConfig: agentConfig(t, map[string]string{"ACP_TEST_PIDFILE": pidfile}, "[tools]\nautoApprove = []\n")})
	notes := filepath.Join(s.ws, "notes.txt")
	testfs.Write(t, notes, "first line\nsecond\n")

	uri := s.open("a.chat", "@You:\nread "+notes+"\n")
	s.send(uri)
	s.waitText(uri, "**Tool Result:** `toolu_read_1`\n```flemma:tool status=pending\n```")
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_read_1`\n```\nfirst line\nsecond\n```", `The file starts with "first line" (allow).`)
	waitDone(t, s, uri)

	askAgent(t, s, uri, "cancel\n")
	s.waitText(uri, "Thinking hard")
	if _, err := s.command("chatls.cancel", map[string]any{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "<!-- flemma:aborted: Response interrupted by the user. -->\n\n@You:\n")
	waitDone(t, s, uri)

	askAgent(t, s, uri, "exit\n")
	s.waitText(uri, "<!-- flemma:aborted: the agent exited (status 1): Error: the model is overloaded -->")
	waitDone(t, s, uri)
	askAgent(t, s, uri, "stream\n")
	s.waitText(uri, "Hello, world.")
	waitDone(t, s, uri)

	pids := readPids(t, pidfile)
	if err := s.c.Notify(s.ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the agent still runs after the document closed", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// waitDone waits until the answer ended: the document ends with `@You:`
// and nothing is being sent (a send is refused while one runs).
func waitDone(t *testing.T, s *session, uri string) {
	t.Helper()
	s.eventually("the answer to end", func() bool {
		return strings.HasSuffix(s.c.Doc(uri).Text, "\n@You:\n\n") || strings.HasSuffix(s.c.Doc(uri).Text, "```\n")
	})
	s.settle(uri)
}

// askAgent writes the next question and sends it, once the last answer's
// send has ended (its text lands a moment before).
func askAgent(t *testing.T, s *session, uri, text string) {
	t.Helper()
	if err := appendText(s, uri, s.c.Doc(uri).Text, text); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err := s.command("chatls.send", map[string]any{"uri": uri})
		if err == nil && out["sending"] == true {
			return
		}
		if err == nil || !strings.Contains(err.Error(), "already in flight") || time.Now().After(deadline) {
			t.Fatalf("chatls.send: %v %v", out, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readPids is the agent's and its grandchild's process IDs, as the
// scripted agent wrote them (the last start's).
func readPids(t *testing.T, file string) []int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(fmt.Errorf("pid file %q: %w", data, err))
		}
		pids = append(pids, n)
	}
	return pids
}

// The agent's own permission options are code actions on the pending
// placeholder, by name and in the agent's order, beside the usual
// Approve and Reject: choosing one answers the agent with that option
// (the scripted agent says which it got) after the placeholder shows the
// choice — approved for an allow option, denied for a reject one.
func TestAgentPermissionOptions(t *testing.T) {
	s := start(t, sessionOptions{userConfig: agentConfig(t, nil, "[tools]\nautoApprove = []\n")})
	notes := filepath.Join(s.ws, "notes.txt")
	testfs.Write(t, notes, "first line\nsecond\n")
	pending := "**Tool Result:** `toolu_read_1`\n```flemma:tool status=pending\n```"

	choose := func(uri, title string) {
		t.Helper()
		var titles []string
		var pick *codeAction
		for _, a := range s.codeActions(uri, "status=pending") {
			titles = append(titles, a.Title)
			if a.Title == title && a.Command != nil {
				pick = &a
			}
		}
		if len(titles) < 4 || strings.Join(titles[:3], "|") != "Allow|Allow always|Reject" || !strings.HasPrefix(titles[3], "Approve read") {
			t.Fatalf("the actions at the pending placeholder: %q; want the agent's options first, then Approve", titles)
		}
		if pick == nil || pick.Command.Command != "chatls.agentOption" {
			t.Fatalf("no command action %q: %q", title, titles)
		}
		if _, err := s.command(pick.Command.Command, pick.Command.Arguments[0]); err != nil {
			t.Fatal(err)
		}
	}
	// shown says an edit labelled label put status=want on the placeholder.
	shown := func(label, want string) {
		t.Helper()
		for _, e := range s.c.Events() {
			if e.Kind == "applyEdit" && e.Label == label && strings.Contains(e.Before, pending) &&
				strings.Contains(e.After, "**Tool Result:** `toolu_read_1`\n```flemma:tool status="+want+"\n```") {
				return
			}
		}
		t.Fatalf("no edit %q set the placeholder to %s; events: %+v", label, want, s.c.Events())
	}

	a := s.open("a.chat", "@You:\nread "+notes+"\n")
	s.send(a)
	s.waitText(a, pending)
	choose(a, "Allow always")
	s.waitText(a, "**Tool Result:** `toolu_read_1`\n```\nfirst line\nsecond\n```", `The file starts with "first line" (always).`)
	shown("chatls: Allow always", "approved")
	waitDone(t, s, a)
	if acts := s.codeActions(a, "toolu_read_1"); len(acts) > 0 && acts[0].Title == "Allow" {
		t.Fatalf("the agent's options are still offered once answered: %+v", acts)
	}
	if _, err := s.command("chatls.agentOption", map[string]any{"uri": a, "id": "toolu_read_1", "option": "allow"}); err == nil ||
		!strings.Contains(err.Error(), "does not ask about toolu_read_1") {
		t.Fatalf("an option chosen once the permission was answered: %v", err)
	}

	b := s.open("b.chat", "@You:\nread "+notes+"\n")
	s.send(b)
	s.waitText(b, pending)
	choose(b, "Reject")
	s.waitText(b, "**Tool Result:** `toolu_read_1` (error)\n```\nThe user rejected reading the file.\n```", "I will not read it.")
	shown("chatls: Reject", "denied")
	waitDone(t, s, b)

	// The usual edit still answers: status=rejected is reject-once.
	c := s.open("c.chat", "@You:\nread "+notes+"\n")
	s.send(c)
	s.waitText(c, pending)
	if err := s.c.Replace(s.ctx, c, "status=pending", "status=rejected"); err != nil {
		t.Fatal(err)
	}
	s.waitText(c, "**Tool Result:** `toolu_read_1` (error)\n```\nThe user rejected reading the file.\n```", "I will not read it.")
	waitDone(t, s, c)
}

// The agent's write of a file open in the editor changes the editor's
// buffer (workspace/applyEdit): the unsaved text the agent read through
// the client is what it edits, and the disk is left alone. When the
// editor refuses the edit, nothing is written and the agent is told.
func TestAgentWritesOpenFile(t *testing.T) {
	var refuse atomic.Bool
	s := start(t, sessionOptions{
		userConfig: agentConfig(t, nil, "[tools]\nautoApprove = [\"read\", \"write\"]\n"),
		Options: lspclient.Options{RefuseEdit: func(label string) bool {
			return refuse.Load() && strings.HasPrefix(label, "chatls: the agent writes")
		}},
	})
	notes := filepath.Join(s.ws, "notes.txt")
	testfs.Write(t, notes, "hello world\n")
	notesURI := lspclient.PathURI(notes)
	if err := s.c.OpenAs(s.ctx, notesURI, "plaintext", "hello world\nnot saved yet\n"); err != nil {
		t.Fatal(err)
	}
	disk := func() string {
		data, err := os.ReadFile(notes)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	a := s.open("a.chat", "@You:\nwriteopen "+notes+" world ACP\n")
	s.send(a)
	s.waitText(a, "-hello world\n+hello ACP\n not saved yet", "Edited.")
	if got := s.c.Doc(notesURI).Text; got != "hello ACP\nnot saved yet\n" {
		t.Fatalf("the editor's buffer after the agent's write: %q", got)
	}
	if got := disk(); got != "hello world\n" {
		t.Fatalf("the agent's write of an open file went to the disk: %q", got)
	}
	waitDone(t, s, a)

	refuse.Store(true)
	b := s.open("b.chat", "@You:\nwriteopen "+notes+" ACP again\n")
	s.send(b)
	s.waitText(b, "Write failed: the editor did not take the write of "+notes)
	if got := s.c.Doc(notesURI).Text; got != "hello ACP\nnot saved yet\n" {
		t.Fatalf("the buffer after a refused write: %q", got)
	}
	if got := disk(); got != "hello world\n" {
		t.Fatalf("a refused write went to the disk: %q", got)
	}
	waitDone(t, s, b)
}
