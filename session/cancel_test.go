package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A cancel that arrives after the call shows as running but before the
// runner registered it (the hook holds the run exactly there) stops it:
// the cancel answers true, the tool never starts and the block gets the
// fixed text (audit: cancelled:false and the tool ran on).
func TestCancelBeforeTheRunnerKnowsTheCall(t *testing.T) {
	reached, proceed := make(chan string, 1), make(chan struct{})
	testHookBeforeRun = func(id string) {
		reached <- id
		<-proceed
	}
	t.Cleanup(func() { testHookBeforeRun = nil }) // after the session ended (cleanups run last-in first)
	ts := newTestSession(t, nil, "")
	defer func() {
		select {
		case <-proceed:
		default:
			close(proceed)
		}
	}()
	d, uri := ts.open("cancel.chat", pendingBash("toolu_c", "touch ran"))
	ts.ed.typeText(t, uri, "status=pending", "status=approved")
	select {
	case id := <-reached:
		if id != "toolu_c" {
			t.Fatalf("hook reached for %s", id)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the approved tool never got to the runner")
	}
	if !ts.s.CancelTool(d, "toolu_c") {
		t.Fatal("the cancel before the runner knew the call found nothing to cancel")
	}
	close(proceed)
	ts.ed.waitText(t, uri, "**Tool Result:** `toolu_c` (error)\n\n```\nUser aborted tool execution.\n```")
	if _, err := os.Stat(filepath.Join(ts.ws, "ran")); err == nil {
		t.Error("the cancelled tool ran")
	}
}

// A tool cancelled while it waits for a free slot never runs either: with
// tools.maxConcurrent = 1 the second call is queued behind the first.
func TestCancelWhileQueued(t *testing.T) {
	reached, proceed := make(chan string, 2), make(chan struct{})
	testHookBeforeRun = func(id string) {
		reached <- id
		<-proceed
	}
	t.Cleanup(func() { testHookBeforeRun = nil })
	ts := newTestSession(t, map[string]any{"tools": map[string]any{"maxConcurrent": 1}}, "")
	defer func() {
		select {
		case <-proceed:
		default:
			close(proceed)
		}
	}()
	doc := "@You:\ngo\n\n@Assistant:\n" +
		"**Tool Use:** `bash` (`q1`)\n\n```json\n{\"command\":\"echo first\",\"timeout\":null}\n```\n\n" +
		"**Tool Use:** `bash` (`q2`)\n\n```json\n{\"command\":\"touch ran-q2\",\"timeout\":null}\n```\n\n" +
		"@You:\n\n**Tool Result:** `q1`\n\n```flemma:tool status=pending\n```\n\n**Tool Result:** `q2`\n\n```flemma:tool status=pending\n```\n"
	d, uri := ts.open("queued.chat", doc)
	ts.ed.typeText(t, uri, "`q1`\n\n```flemma:tool status=pending", "`q1`\n\n```flemma:tool status=approved")
	if first := <-reached; first != "q1" { // q1 holds the only slot
		t.Fatalf("first to run: %s", first)
	}
	ts.ed.typeText(t, uri, "`q2`\n\n```flemma:tool status=pending", "`q2`\n\n```flemma:tool status=approved")
	ts.ed.waitFor(t, "q2 queued", func() bool {
		info := ts.s.HoverInfo(t.Context(), d, ts.s.Latest(d), ts.s.Latest(d).ToolResult("q2"), ts.s.Latest(d).ToolUse("q2"))
		return info.Status == "queued"
	})
	if !ts.s.CancelTool(d, "q2") {
		t.Fatal("the cancel of a queued call found nothing to cancel")
	}
	ts.ed.waitText(t, uri, "**Tool Result:** `q2` (error)\n\n```\nUser aborted tool execution.\n```")
	close(proceed)
	ts.ed.waitText(t, uri, "**Tool Result:** `q1`\n\n```\nfirst\n```")
	if _, err := os.Stat(filepath.Join(ts.ws, "ran-q2")); err == nil {
		t.Error("the call cancelled while queued ran")
	}
}
