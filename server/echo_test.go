package server

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/session"
)

// streamedAnswer is a scripted answer long enough, and paced enough, to
// arrive in several edits; it has lines, a blank line and words that repeat.
const streamedAnswer = "Hello there, hello there.\nA second line, with words\n\nand a paragraph that ends here."

// scriptUserConfig is a user config whose provider replays responses from
// a file written beside it, each word 10 ms after the last.
func scriptUserConfig(t *testing.T, responses ...map[string]any) string {
	t.Helper()
	for _, r := range responses {
		if _, ok := r["delayMs"]; !ok {
			r["delayMs"] = 10
		}
	}
	data, err := json.Marshal(map[string]any{"responses": responses})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "responses.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return "provider = \"replay\"\n[providers.replay]\ntype = \"script\"\nfile = \"" + file + "\"\n"
}

// The server knows its own edits whatever shape the client echoes them in,
// and whether or not it answers: each piece lands exactly once, in order,
// and the server's view ends equal to the client's text.
func TestStreamLandsOnceWhateverTheEcho(t *testing.T) {
	const question = "@You:\nhello\n"
	want := question + "\n@Assistant:\n" + streamedAnswer + "\n\n@You:\n\n"
	clients := []struct {
		name string
		opts lspclient.Options
	}{
		{"echo as sent", lspclient.Options{}},
		{"echo as whole lines", lspclient.Options{Echo: lspclient.EchoLines}},
		{"echo split in two", lspclient.Options{Echo: lspclient.EchoSplit}},
		{"echo as the whole text", lspclient.Options{Echo: lspclient.EchoWhole}},
		{"never answers applyEdit", lspclient.Options{NeverReplyToApplyEdit: true, Echo: lspclient.EchoWhole}},
		{"silent until its next request", lspclient.Options{SilentApply: true}},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			if c.opts.NeverReplyToApplyEdit || c.opts.SilentApply {
				// The first unanswered edit makes the client silent; a test
				// need not wait the whole reply bound for it.
				old := session.EditReplyTimeout
				session.EditReplyTimeout = 300 * time.Millisecond
				t.Cleanup(func() { session.EditReplyTimeout = old })
			}
			p := startInProcessWith(t, c.opts, scriptUserConfig(t, map[string]any{"text": streamedAnswer}))
			uri := p.open("a.chat", question)
			if _, err := p.command("chatls.send", map[string]any{"uri": uri}); err != nil {
				t.Fatal(err)
			}
			// Nothing from the client is awaited: a silent client's copy
			// gets the whole answer all the same.
			err := p.c.WaitFor(30*time.Second, "the whole answer", func(st *lspclient.State) bool { return st.Text(uri) == want })
			if err != nil {
				t.Fatalf("%v\n--- client's text:\n%q\n--- want:\n%q", err, p.c.Doc(uri).Text, want)
			}
			if c.opts.SilentApply {
				if err := p.c.Flush(p.ctx, uri); err != nil {
					t.Fatal(err)
				}
			}
			p.waitServerText(uri, want)
		})
	}
}

// A client that echoes edits late (eglot blocked on a request of its own
// sends no didChange) still gets the answer, each piece once: an edit that
// cannot name the client's version goes unversioned after session.EchoWait.
func TestStreamGoesOnWhenEchoesAreLate(t *testing.T) {
	old := session.EchoWait
	session.EchoWait = 100 * time.Millisecond
	t.Cleanup(func() { session.EchoWait = old })
	const question = "@You:\nhello\n"
	want := question + "\n@Assistant:\n" + streamedAnswer + "\n\n@You:\n\n"
	p := startInProcessWith(t, lspclient.Options{DelayEcho: 2 * time.Second}, scriptUserConfig(t, map[string]any{"text": streamedAnswer}))
	uri := p.open("a.chat", question)
	if _, err := p.command("chatls.send", map[string]any{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	if err := p.c.WaitFor(30*time.Second, "the whole answer", func(st *lspclient.State) bool { return st.Text(uri) == want }); err != nil {
		t.Fatalf("%v\n--- client's text:\n%q", err, p.c.Doc(uri).Text)
	}
	p.waitServerText(uri, want)
}

// waitNoSend waits until no request is in flight for the document.
func (p *inProcess) waitNoSend(uri string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		busy := p.srv.sess.Status(p.srv.sess.Doc(uri)).Sending
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatal("the request never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitServerText waits until the server's view of the document is want.
func (p *inProcess) waitServerText(uri, want string) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := p.srv.sess.Latest(p.srv.sess.Doc(uri)).Text()
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the server's view:\n%q\nwant:\n%q", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The document never ends without a line ending while an answer streams:
// Neovim adds one of its own to such a last line, and its echo then holds
// text the server never wrote. The stream keeps a line ending of its own
// after the text it writes.
func TestStreamKeepsTheLastLineEnding(t *testing.T) {
	const question = "@You:\nhello\n"
	p := startInProcessWith(t, lspclient.Options{}, scriptUserConfig(t, map[string]any{"text": streamedAnswer}))
	uri := p.open("a.chat", question)
	if _, err := p.command("chatls.send", map[string]any{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	p.waitText(uri, "\n\n@You:\n\n")
	edits := 0
	for _, e := range p.c.Events() {
		if e.Kind != "applyEdit" || e.URI != uri {
			continue
		}
		edits++
		if !strings.HasSuffix(e.After, "\n") {
			t.Errorf("an edit left the document without its last line ending: %q", e.After)
		}
	}
	if edits < 3 {
		t.Errorf("the answer came in %d edits; the test needs several", edits)
	}
}

// chatls.cancel answers once the request has stopped, not once the abort
// marker is in the document: eglot, blocked on the cancel, sends no
// didChange until it has the answer (it froze for 10 s).
func TestCancelAnswersWhileTheClientEchoesNothing(t *testing.T) {
	slow := strings.Repeat("word ", 400)
	p := startInProcessWith(t, lspclient.Options{DelayEcho: 20 * time.Second}, scriptUserConfig(t, map[string]any{"text": slow, "delayMs": 20}))
	uri := p.open("a.chat", "@You:\nhello\n")
	if _, err := p.command("chatls.send", map[string]any{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	p.waitText(uri, "word word ")
	began := time.Now()
	out, err := p.command("chatls.cancel", map[string]any{"uri": uri})
	took := time.Since(began)
	if err != nil || out["cancelled"] != true {
		t.Fatalf("cancel: %v %v", out, err)
	}
	// 200 ms on an idle machine; the bound is for a busy one, and still far
	// below the echo the old cancel waited for.
	if took > 3*time.Second {
		t.Fatalf("chatls.cancel took %v", took)
	}
	p.waitText(uri, "<!-- flemma:aborted: Response interrupted by the user. -->\n\n@You:\n\n")
}

// A request that fails before any content leaves the document as it was,
// whatever shape the client echoes the `@Assistant:` line in (Neovim kept
// three or four of them after a 401).
func TestFailedSendLeavesTheDocumentAsItWas(t *testing.T) {
	const question = "@You:\nhello\n"
	for _, shape := range []lspclient.EchoShape{lspclient.EchoAsSent, lspclient.EchoLines, lspclient.EchoSplit, lspclient.EchoWhole} {
		t.Run("echo "+cmp.Or(string(shape), "as sent"), func(t *testing.T) {
			p := startInProcessWith(t, lspclient.Options{Echo: shape}, scriptUserConfig(t, map[string]any{
				"error": map[string]any{"status": 401, "type": "authentication_error", "message": "invalid x-api-key"}}))
			uri := p.open("a.chat", question)
			for i := 0; i < 3; i++ {
				_, _ = p.command("chatls.send", map[string]any{"uri": uri})
				p.waitMessages(i+1, "chatls: replay: ")
				p.waitServerText(uri, question)
				p.waitNoSend(uri)
				if got := p.c.Doc(uri).Text; got != question {
					t.Fatalf("after failed send %d the document is\n%q", i+1, got)
				}
			}
		})
	}
}
