package session

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/cycle"
)

// editorShapes are the ways real clients answer the session's edits.
func editorShapes() []struct {
	name  string
	shape func(e *fakeEditor)
} {
	return []struct {
		name  string
		shape func(e *fakeEditor)
	}{
		{"echoes before it answers (VS Code)", func(e *fakeEditor) {}},
		{"answers before it echoes (Neovim)", func(e *fakeEditor) { e.replyFirst = true }},
		{"echoes the whole text (Vim's ALE)", func(e *fakeEditor) { e.wholeText = true }},
		{"answers late and at random", func(e *fakeEditor) {
			var mu sync.Mutex
			rng := rand.New(rand.NewPCG(7, 9))
			e.delay = func() time.Duration {
				mu.Lock()
				defer mu.Unlock()
				return time.Duration(rng.IntN(60)) * time.Millisecond
			}
		}},
		{"refuses every other edit", func(e *fakeEditor) {
			var mu sync.Mutex
			n := 0
			e.refuse = func(EditRequest) bool {
				mu.Lock()
				defer mu.Unlock()
				n++
				return n%2 == 1
			}
		}},
	}
}

// scriptConfig is a user config whose provider replays responses, each
// word 5 ms after the last (a stream in many edits).
func scriptConfig(t *testing.T, extra string, responses ...map[string]any) string {
	t.Helper()
	for _, r := range responses {
		if _, ok := r["delayMs"]; !ok {
			r["delayMs"] = 5
		}
	}
	data, _ := json.Marshal(map[string]any{"responses": responses})
	file := filepath.Join(t.TempDir(), "responses.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return "provider = \"replay\"\n" + extra + "[providers.replay]\ntype = \"script\"\nfile = \"" + file + "\"\n"
}

// An approved call's result is written exactly once, and the session's
// view ends equal to the editor's text, whatever shape the editor answers
// in — also when it refuses edits or answers late.
func TestResultWrittenOnceWhateverTheEditor(t *testing.T) {
	const doc = "@You:\nadd\n\n@Assistant:\n**Tool Use:** `calculator` (`c1`)\n\n```json\n{\"expression\":\"20 + 22\"}\n```\n\n" +
		"@You:\n\n**Tool Result:** `c1`\n\n```flemma:tool status=pending\n```\n"
	for _, c := range editorShapes() {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t, map[string]any{"autopilot": true}, "")
			c.shape(ts.ed)
			d, uri := ts.open("calc.chat", doc)
			ts.ed.typeText(t, uri, "status=pending", "status=approved")
			ts.ed.waitText(t, uri, "**Tool Result:** `c1`\n\n```\n42\n```")
			ts.ed.waitFor(t, "the session's view to be the editor's text", func() bool {
				return ts.s.Latest(d).Text() == ts.ed.text(uri)
			})
			if n := strings.Count(ts.ed.text(uri), "**Tool Result:** `c1`"); n != 1 {
				t.Fatalf("%d results for c1:\n%s", n, ts.ed.text(uri))
			}
		})
	}
}

// The answer lands once, in order, with the user's typing above it kept,
// whatever shape the editor answers in.
func TestAnswerStreamsOnceWhateverTheEditor(t *testing.T) {
	const answer = "one two three four five six seven eight nine ten eleven twelve"
	for _, c := range editorShapes() {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t, nil, scriptConfig(t, "", map[string]any{"text": answer}))
			c.shape(ts.ed)
			d, uri := ts.open("a.chat", "@You:\nhello\n")
			if err := ts.s.Send(t.Context(), d); err != nil {
				t.Fatal(err)
			}
			ts.ed.waitText(t, uri, "one two")
			ts.ed.typeText(t, uri, "hello", "hello, typed while it streams")
			want := "@You:\nhello, typed while it streams\n\n@Assistant:\n" + answer + "\n\n@You:\n\n"
			ts.ed.waitFor(t, "the whole answer once", func() bool {
				return ts.ed.text(uri) == want && !ts.s.Status(d).Sending
			})
			ts.ed.waitFor(t, "the session's view to be the editor's text", func() bool {
				return ts.s.Latest(d).Text() == want
			})
		})
	}
}

// The chain: the model calls a tool the policy approves, the result is
// written, the autopilot sends again, and the chain ends with the answer
// that calls nothing (SPEC §7).
func TestChainRunsToTheEnd(t *testing.T) {
	cfg := scriptConfig(t, "[tools]\nautoApprove = [\"calculator\"]\n",
		map[string]any{"text": "Let me add.", "toolUses": []any{map[string]any{"id": "k1", "name": "calculator", "input": map[string]any{"expression": "2 * 21"}}}},
		map[string]any{"text": "It is 42."})
	ts := newTestSession(t, map[string]any{"autopilot": true}, cfg)
	ts.ed.replyFirst = true
	d, uri := ts.open("chain.chat", "@You:\nwhat is 2*21?\n")
	if err := ts.s.Send(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	ts.ed.waitFor(t, "the chain to end", func() bool {
		st := ts.s.Status(d)
		return strings.Contains(ts.ed.text(uri), "It is 42.") && !st.Sending && st.Chain != nil && !st.Chain.Armed
	})
	text := ts.ed.text(uri)
	for _, want := range []string{"**Tool Result:** `k1`\n```\n42\n```", "@Assistant:\nIt is 42.\n\n@You:\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if st := ts.s.Status(d); st.Chain.Turns != 2 {
		t.Errorf("the chain took %d requests, want 2", st.Chain.Turns)
	}
}

// A result edit the editor said it applied and dropped is written again,
// as the tool produced it, once a change of the user's shows it missing.
// The pass that change wakes must leave the block to that redo, not write
// the journal's recorded copy ("the tool was not run again"): the two
// raced, and in CI under load the recorded copy won now and then. The
// test holds the document's write lock, so the redo cannot land, and asks
// what a pass would do right then.
func TestDroppedResultIsWrittenAgainAsItWas(t *testing.T) {
	const doc = "@You:\nadd\n\n@Assistant:\n**Tool Use:** `calculator` (`c1`)\n\n```json\n{\"expression\":\"20 + 22\"}\n```\n\n" +
		"@You:\n\n**Tool Result:** `c1`\n\n```flemma:tool status=pending\n```\n"
	ts := newTestSession(t, map[string]any{"autopilot": true}, "")
	var mu sync.Mutex
	dropped := 0
	ts.ed.drop = func(req EditRequest) bool {
		mu.Lock()
		defer mu.Unlock()
		if req.Label == "chatls: tool result" && dropped == 0 {
			dropped++
			return true
		}
		return false
	}
	d, uri := ts.open("calc.chat", doc)
	ts.ed.typeText(t, uri, "status=pending", "status=approved")
	ts.ed.waitFor(t, "the result edit to be dropped and its writer done", func() bool {
		mu.Lock()
		defer mu.Unlock()
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		return dropped == 1 && strings.Contains(d.snap.Text(), "```\n42\n```") && !d.ledger.Busy("c1")
	})

	d.writeMu.Lock()
	ts.ed.typeText(t, uri, "add", "add!")
	view, ledger := ts.s.view(d)
	if !strings.Contains(view.Text(), "status=approved") {
		d.writeMu.Unlock()
		t.Fatalf("the change must show the result missing:\n%s", view.Text())
	}
	plan := cycle.Resolve(view, ledger, ts.s.mode(d, true), "", ts.s.facts(d, view, ""))
	d.writeMu.Unlock()
	if res, ok := plan.Results["c1"]; ok {
		t.Fatalf("a pass meanwhile would write %q over the redo of the result", res.Text)
	}

	ts.ed.waitText(t, uri, "**Tool Result:** `c1`\n\n```\n42\n```")
	ts.ed.waitFor(t, "the session's view to be the editor's text", func() bool {
		return ts.s.Latest(d).Text() == ts.ed.text(uri)
	})
	if text := ts.ed.text(uri); strings.Contains(text, "recorded result") || strings.Count(text, "**Tool Result:**") != 1 {
		t.Fatalf("the result must be written again as the tool produced it, once:\n%s", text)
	}
}
