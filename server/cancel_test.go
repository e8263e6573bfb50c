package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A cancel that arrives after the call shows as running but before the
// runner registered it (the hook holds the run exactly there) stops it:
// chatls.cancel answers cancelled, the tool never starts and the block gets
// the fixed text (audit: cancelled:false and the tool ran on).
func TestCancelBeforeTheRunnerKnowsTheCall(t *testing.T) {
	reached, proceed := make(chan string, 1), make(chan struct{})
	testHookBeforeRun = func(id string) {
		reached <- id
		<-proceed
	}
	t.Cleanup(func() { testHookBeforeRun = nil }) // after the server ended (cleanups run last-in first)
	p := startInProcess(t, nil)
	defer func() {
		select {
		case <-proceed:
		default:
			close(proceed)
		}
	}()
	marker := filepath.Join(p.ws, "ran")
	uri := p.open("cancel.chat", pendingBash("toolu_c", "touch ran"))
	if err := p.c.Replace(p.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-reached:
		if id != "toolu_c" {
			t.Fatalf("hook reached for %s", id)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the approved tool never got to the runner")
	}
	out, err := p.command("chatls.cancel", map[string]any{"uri": uri, "id": "toolu_c"})
	if err != nil || out["cancelled"] != true {
		t.Fatalf("chatls.cancel before the runner knew the call: %v %v", out, err)
	}
	close(proceed)
	p.waitText(uri, "**Tool Result:** `toolu_c` (error)\n\n```\nUser aborted tool execution.\n```")
	if _, err := os.Stat(marker); err == nil {
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
	p := startInProcess(t, map[string]any{"tools": map[string]any{"maxConcurrent": 1}})
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
	uri := p.open("queued.chat", doc)
	if err := p.c.Replace(p.ctx, uri, "`q1`\n\n```flemma:tool status=pending", "`q1`\n\n```flemma:tool status=approved"); err != nil {
		t.Fatal(err)
	}
	first := <-reached // q1 holds the only slot
	if first != "q1" {
		t.Fatalf("first to run: %s", first)
	}
	if err := p.c.Replace(p.ctx, uri, "`q2`\n\n```flemma:tool status=pending", "`q2`\n\n```flemma:tool status=approved"); err != nil {
		t.Fatal(err)
	}
	p.waitHover(uri, "`bash` (`q2`)", "**Status:** queued")
	out, err := p.command("chatls.cancel", map[string]any{"uri": uri, "id": "q2"})
	if err != nil || out["cancelled"] != true {
		t.Fatalf("chatls.cancel of a queued call: %v %v", out, err)
	}
	p.waitText(uri, "**Tool Result:** `q2` (error)\n\n```\nUser aborted tool execution.\n```")
	close(proceed)
	p.waitText(uri, "**Tool Result:** `q1`\n\n```\nfirst\n```")
	if _, err := os.Stat(filepath.Join(p.ws, "ran-q2")); err == nil {
		t.Error("the call cancelled while queued ran")
	}
}
