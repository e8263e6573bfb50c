package server

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/session"
)

// A client that has answered an edit is slow when a later answer is late,
// not silent (VS Code on a loaded machine took 4.3 s for one): the server
// waits for the answer, and each piece still lands exactly once, in order.
// Taking it for silent sent edits for a text it did not have yet (the
// document held "word1 word2 word3 word4 word26").
func TestStreamLandsOnceWhenAnswersAreLate(t *testing.T) {
	// The first answer comes at once and must beat the bound even on a
	// busy machine: 1 s. Every later one comes after it.
	old := session.EditReplyTimeout
	session.EditReplyTimeout = time.Second
	t.Cleanup(func() { session.EditReplyTimeout = old })
	rng := rand.New(rand.NewPCG(1, 2))
	delay := func(n int) time.Duration {
		if n == 1 {
			return 0 // this client answers
		}
		return time.Duration(1100+rng.IntN(900)) * time.Millisecond // always past the bound
	}
	const question = "@You:\nhello\n"
	want := question + "\n@Assistant:\n" + streamedAnswer + "\n\n@You:\n\n"
	p := startInProcessWith(t, lspclient.Options{ApplyDelay: delay}, scriptUserConfig(t, map[string]any{"text": streamedAnswer}))
	uri := p.open("a.chat", question)
	if _, err := p.command("chatls.send", map[string]any{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	if err := p.c.WaitFor(60*time.Second, "the whole answer", func(st *lspclient.State) bool { return st.Text(uri) == want }); err != nil {
		t.Fatalf("%v\n--- client's text:\n%q\n--- want:\n%q", err, p.c.Doc(uri).Text, want)
	}
	p.waitServerText(uri, want)
	if p.srv.silent.Load() {
		t.Error("a client that answers was taken for a silent one")
	}
}
