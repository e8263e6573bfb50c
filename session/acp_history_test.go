package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// newAgentSession is a test session whose provider is the scripted agent
// of acp/testdata/agent (on the official TypeScript SDK); without node or
// its package the test skips, unless CHATLS_REQUIRE_ACP is set.
func newAgentSession(t *testing.T, policy string) *testSession {
	t.Helper()
	skip := func(why string) {
		if os.Getenv("CHATLS_REQUIRE_ACP") != "" {
			t.Fatal(why + " (CHATLS_REQUIRE_ACP is set)")
		}
		t.Skip(why)
	}
	if _, err := exec.LookPath("node"); err != nil {
		skip("node is not installed: the ACP tests run a scripted agent on Node")
	}
	dir, _ := filepath.Abs("../acp/testdata/agent")
	if _, err := os.Stat(filepath.Join(dir, "node_modules/@agentclientprotocol/sdk/package.json")); err != nil {
		skip("@agentclientprotocol/sdk is not installed: run acp/install-test-agents.sh")
	}
	return newTestSession(t, nil, "provider = \"agent\"\n[providers.agent]\ntype = \"acp\"\ncommand = [\"node\", "+
		strconv.Quote(filepath.Join(dir, "agent.mjs"))+"]\n"+policy)
}

// historyDiagnostics are the document's agent-history diagnostics now.
func historyDiagnostics(ts *testSession, d *Doc) []chatdoc.Diagnostic {
	var out []chatdoc.Diagnostic
	for _, dg := range ts.s.Diagnostics(d, ts.s.latest(d), true) {
		if dg.Code == CodeAgentHistory {
			out = append(out, dg)
		}
	}
	return out
}

// sendAndWait sends the document and waits for the turn's end.
func sendAndWait(ts *testSession, d *Doc, uri string, subs ...string) {
	ts.t.Helper()
	if err := ts.s.Send(ts.t.Context(), d); err != nil {
		ts.t.Fatal(err)
	}
	ts.ed.waitFor(ts.t, "the agent's answer "+strings.Join(subs, " + "), func() bool {
		text := ts.ed.text(uri)
		for _, sub := range subs {
			if !strings.Contains(text, sub) {
				return false
			}
		}
		return strings.HasSuffix(strings.TrimRight(text, "\n"), "@You:") && !ts.s.Status(d).Sending
	})
}

// An edit above the last answer of a document whose provider is an agent
// gets an information diagnostic on the lines it changed: the agent keeps
// its own history. None before the first send, none for the normal flow —
// the answer and the results chatls writes, an approval, the next
// question typed under the last @You: — and none once the edit is undone.
func TestAgentHistoryDiagnostic(t *testing.T) {
	ts := newAgentSession(t, "[tools]\nautoApprove = []\n")
	notes := filepath.Join(ts.ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("first line\nsecond\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, uri := ts.open("a.chat", "@You:\nremember the blue door\n")
	none := func(when string) {
		t.Helper()
		if got := historyDiagnostics(ts, d); len(got) > 0 {
			t.Fatalf("%s: %+v\n%s", when, got, ts.ed.text(uri))
		}
	}

	ts.ed.typeText(t, uri, "blue", "red")
	none("an edit of a document never sent")
	ts.ed.typeText(t, uri, "red", "blue")

	sendAndWait(ts, d, uri, "Noted.")
	none("after the answer")
	ts.ed.typeAtEnd(t, uri, "@You:\n", "@You:\nread "+notes+"\n")
	none("typing the next question")
	if err := ts.s.Send(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	ts.ed.waitText(t, uri, "```flemma:tool status=pending\n```")
	none("a permission waiting")
	ts.ed.typeText(t, uri, "status=pending", "status=approved")
	ts.ed.waitFor(t, "the turn's end", func() bool {
		return strings.Contains(ts.ed.text(uri), `The file starts with "first line" (allow).`) && !ts.s.Status(d).Sending
	})
	none("after an approval and the result chatls wrote")

	ts.ed.typeText(t, uri, "the blue door", "the green door")
	got := historyDiagnostics(ts, d)
	doc := ts.s.latest(d)
	if len(got) != 1 || got[0].Severity != chatdoc.SeverityInformation || got[0].Message != MsgAgentHistory ||
		doc.Slice(got[0].Span.Start, got[0].Span.End) != "remember the green door" {
		t.Fatalf("the edit above the last answer: %+v\n%s", got, doc.Text())
	}
	ts.ed.typeText(t, uri, "the green door", "the blue door")
	none("the edit undone")
}

// The diagnostic marks the whole lines an edit changed.
func TestChangedLines(t *testing.T) {
	for _, c := range []struct{ old, text, want string }{
		{"@You:\nthe blue door\nend\n", "@You:\nthe green door\nend\n", "the green door"},
		{"@You:\na\nb\n", "@You:\na\nnew\nb\n", "new"},
		{"@You:\na\ngone\nb\n", "@You:\na\nb\n", "b"},
		{"@You:\r\nthe blue door\r\n", "@You:\r\nthe red door\r\n", "the red door"},
		{"@You:\nfirst\nlast", "@You:\nfirst\nlast word", "last word"},
	} {
		sp := changedLines(c.text, c.old)
		if got := c.text[sp.Start:sp.End]; got != c.want {
			t.Errorf("changedLines(%q, %q) = %q, want %q", c.text, c.old, got, c.want)
		}
	}
}

// A document opened again with the agent session chatls remembers for it
// was sent before: an edit above its last answer gets the diagnostic
// before any new send.
func TestAgentHistoryDiagnosticAfterReopen(t *testing.T) {
	ts := newAgentSession(t, "")
	d, uri := ts.open("a.chat", "@You:\nremember the blue door\n")
	sendAndWait(ts, d, uri, "Noted.")
	text := ts.ed.text(uri)
	ts.s.CloseDoc(uri)

	d, uri = ts.open("a.chat", text)
	ts.ed.typeText(t, uri, "the blue door", "the green door")
	var got []chatdoc.Diagnostic
	ts.ed.waitFor(t, "the diagnostic on the edit above the last answer", func() bool {
		got = historyDiagnostics(ts, d)
		return len(got) > 0
	})
	doc := ts.s.latest(d)
	if len(got) != 1 || got[0].Severity != chatdoc.SeverityInformation || doc.Slice(got[0].Span.Start, got[0].Span.End) != "remember the green door" {
		t.Fatalf("the edit above the last answer after reopening: %+v\n%s", got, doc.Text())
	}
	ts.ed.typeText(t, uri, "the green door", "the blue door")
	if got := historyDiagnostics(ts, d); len(got) > 0 {
		t.Fatalf("a diagnostic on the document as reopened: %+v", got)
	}
}
