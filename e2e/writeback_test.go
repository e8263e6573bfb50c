package e2e

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// silentTimeout makes the server give up waiting for an applyEdit reply
// quickly, so that a test can see what it does then.
const silentTimeout = "CHATLS_APPLY_EDIT_TIMEOUT=300ms"

// resultEdits counts the result edits the client applied.
func resultEdits(events []lspclient.Event) int {
	return countEvents(events, "applyEdit", "chatls: tool result")
}

// A client that applies an edit and stays silent — no reply, no didChange
// for a while (Vim's ALE) — must not get the same edit again: the server
// waits for a change that shows whether it landed (issue: a result written
// twice, a stray fence).
func TestSilentClientGetsEachResultOnce(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{SilentApply: true}, env: []string{silentTimeout}})
	uri := s.open("silent.chat", strings.Replace(revokeDoc, "touch marker-a", "echo silent-once", 1))
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	// The server sent the result, got no answer, and says it waits.
	if err := s.c.WaitFor(20*time.Second, "the server to give up on the reply", func(st *lspclient.State) bool {
		return resultEdits(st.Events()) == 1 && strings.Contains(s.c.Stderr(), "no reply to workspace/applyEdit")
	}); err != nil {
		t.Fatal(err)
	}
	// Later the client sends its whole text, with the edit in it.
	if err := s.c.Flush(s.ctx, uri); err != nil {
		t.Fatal(err)
	}
	s.settle(uri)
	if n := resultEdits(s.c.Events()); n != 1 {
		t.Fatalf("the result was sent %d times", n)
	}
	if text := s.c.Doc(uri).Text; strings.Count(text, "silent-once\n```") != 1 || strings.Count(text, "**Tool Result:**") != 1 {
		t.Fatalf("the result must be in the document exactly once:\n%s", text)
	}
	if r := s.advance(uri); r["running"].(float64) != 0 {
		t.Fatalf("advance after the flush: %v", r)
	}
}

// An edit lost on its way (no answer, not applied) is sent again once a
// change shows it is not in the document.
func TestLostEditIsSentAgainAfterAChangeShowsIt(t *testing.T) {
	var dropped atomic.Int32
	opts := lspclient.Options{DropApplyEdit: func(label string) bool {
		return label == "chatls: tool result" && dropped.Add(1) == 1
	}}
	s := start(t, sessionOptions{Options: opts, env: []string{silentTimeout}})
	uri := s.open("lost.chat", strings.Replace(revokeDoc, "touch marker-a", "echo lost-once", 1))
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	if err := s.c.WaitFor(20*time.Second, "the server to give up on the reply", func(*lspclient.State) bool {
		return dropped.Load() == 1 && strings.Contains(s.c.Stderr(), "no reply to workspace/applyEdit")
	}); err != nil {
		t.Fatal(err)
	}
	if resultEdits(s.c.Events()) != 0 {
		t.Fatal("the dropped edit must not be in the document")
	}
	// The user types somewhere: the server sees its edit is missing and sends it again.
	if err := s.c.Replace(s.ctx, uri, "make a marker", "make a marker!"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "```\nlost-once\n```")
	s.settle(uri)
	if n := resultEdits(s.c.Events()); n != 1 || strings.Count(s.c.Doc(uri).Text, "lost-once\n```") != 1 {
		t.Fatalf("the result was applied %d times:\n%s", n, s.c.Doc(uri).Text)
	}
}

// Results are retried by time, not by count: with the client refusing
// every result edit for a while (the user typing), six finished calls are
// all written once it accepts again, without the user pressing advance,
// each exactly once.
func TestRefusedResultsAreWrittenWhenTheClientAcceptsAgain(t *testing.T) {
	var refusing atomic.Bool
	refusing.Store(true)
	opts := sessionOptions{Options: echoRule}
	opts.RefuseEdit = func(label string) bool { return refusing.Load() && label == "chatls: tool result" }
	s := start(t, opts)
	var calls, results strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&calls, "**Tool Use:** `bash` (`toolu_%d`)\n\n```json\n{\"command\":\"echo six-%d\",\"timeout\":null}\n```\n\n", i, i)
		fmt.Fprintf(&results, "\n**Tool Result:** `toolu_%d`\n\n```flemma:tool status=approved\n```\n", i)
	}
	uri := s.open("six.chat", "@You:\ngo\n\n@Assistant:\n"+calls.String()+"@You:\n"+results.String())
	s.advance(uri)
	// Every result is refused many times (more than the 8 attempts after
	// which an older chatls gave up for good).
	if err := s.c.WaitFor(60*time.Second, "many refusals", func(st *lspclient.State) bool {
		return countEvents(st.Events(), "refused", "") >= 9
	}); err != nil {
		t.Fatal(err)
	}
	refusing.Store(false)
	for i := 1; i <= 6; i++ {
		s.waitText(uri, fmt.Sprintf("```\nsix-%d\n```", i))
	}
	s.settle(uri)
	text := s.c.Doc(uri).Text
	for i := 1; i <= 6; i++ {
		if n := strings.Count(text, fmt.Sprintf("six-%d\n```", i)); n != 1 {
			t.Errorf("result %d written %d times", i, n)
		}
	}
	if strings.Contains(text, "status=approved") {
		t.Errorf("a finished result is still unwritten:\n%s", text)
	}
}
