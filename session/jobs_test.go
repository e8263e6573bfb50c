package session

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/provider"
)

// A call the model asks to run in the background gets its result at once,
// the conversation goes on for two more turns while the job runs, and the
// job's output arrives once, as a Job Result in the last @You: message.
func TestBackgroundJobRunsWhileTheConversationGoesOn(t *testing.T) {
	ts := newTestSession(t, nil, scriptConfig(t, "",
		map[string]any{"text": "unused"}, map[string]any{"text": "turn one"}, map[string]any{"text": "turn two"}, map[string]any{"text": "turn three"}))
	fifo := filepath.Join(ts.ws, "release")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	doc := "@You:\nbuild it\n\n@Assistant:\n**Tool Use:** `bash` (`b1`)\n\n```json\n" +
		`{"command":"read -r word < release; echo built $word","timeout":null,"flemma.background":true}` +
		"\n```\n\n@You:\n\n**Tool Result:** `b1`\n\n```flemma:tool status=pending\n```\n"
	d, uri := ts.open("job.chat", doc)
	ts.ed.typeText(t, uri, "status=pending", "status=approved")
	job := jobName(d.journalKey(), "b1")
	ts.ed.waitText(t, uri, "**Tool Result:** `b1` (job="+job+")\n\n```\nRunning in background as "+job+".\n```\n")
	// To the cycle the call is done (the job runs on): the chat may go on.
	ts.ed.waitFor(t, "the call handed back, its job running", func() bool {
		st := ts.s.Status(d)
		return st.Jobs == 1 && st.Running == 0
	})

	for i, turn := range []string{"turn one", "turn two"} {
		if i == 0 {
			ts.ed.typeAtEnd(t, uri, "```\n", "```\n\nwhat next?\n")
		} else {
			ts.ed.typeAtEnd(t, uri, "@You:\n\n", "@You:\nand then?\n")
		}
		if err := ts.s.Send(t.Context(), d); err != nil {
			t.Fatalf("send %d while the job runs: %v", i+1, err)
		}
		ts.ed.waitFor(t, turn, func() bool {
			return strings.Contains(ts.ed.text(uri), "@Assistant:\n"+turn+"\n") && !ts.s.Status(d).Sending
		})
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
	ts.ed.waitText(t, uri, "**Job Result:** `"+job+"`\n\n```\nbuilt go\n```\n")
	ts.ed.waitFor(t, "the job to end", func() bool { return ts.s.Status(d).Jobs == 0 })
	text := ts.ed.text(uri)
	if n := strings.Count(text, "**Job Result:**"); n != 1 {
		t.Fatalf("%d job results:\n%s", n, text)
	}
	last := text[strings.LastIndex(text, "@You:"):]
	if !strings.Contains(last, "**Job Result:** `"+job+"`") {
		t.Errorf("the job result is not in the last @You: message:\n%s", text)
	}
	if jr := chatdoc.Parse(text).JobResult(job); jr == nil || jr.Content != "built go" {
		t.Errorf("the job result reads %+v", jr)
	}

	// Delivered once: a turn after it adds no second one, and what the
	// model gets holds it once.
	ts.ed.typeAtEnd(t, uri, "built go\n```\n", "built go\n```\n\nthanks\n")
	if err := ts.s.Send(t.Context(), d); err != nil {
		t.Fatalf("send after the job: %v", err)
	}
	ts.ed.waitFor(t, "turn three", func() bool {
		return strings.Contains(ts.ed.text(uri), "@Assistant:\nturn three\n") && !ts.s.Status(d).Sending
	})
	ts.s.Advance(t.Context(), d)
	text = ts.ed.text(uri)
	if n := strings.Count(text, "**Job Result:**"); n != 1 {
		t.Fatalf("%d job results after another turn:\n%s", n, text)
	}
	p, _ := provider.BuildPrompt(chatdoc.Parse(text), provider.PromptOptions{})
	sent := 0
	for _, m := range p.Messages {
		for _, part := range m.Parts {
			sent += strings.Count(part.Text, "[Job result for bash (b1)]\nbuilt go")
		}
	}
	if sent != 1 {
		t.Errorf("the job result is sent %d times", sent)
	}
}

// A job that ended with the chatls that ran it is recovered by the next
// step, as Flemma writes it; opening alone changes nothing.
func TestLostJobRecoveredByTheNextStep(t *testing.T) {
	ts := newTestSession(t, nil, "")
	doc := "@You:\nbuild it\n\n@Assistant:\n**Tool Use:** `bash` (`b1`)\n\n```json\n" +
		`{"command":"make","timeout":null,"flemma.background":true}` +
		"\n```\n\n@You:\n\n**Tool Result:** `b1` (job=job_gone)\n\n```\nRunning in background as job_gone.\n```\n"
	d, uri := ts.open("lost.chat", doc)
	if got := ts.ed.text(uri); got != doc {
		t.Fatalf("opening changed the document:\n%s", got)
	}
	ts.s.Advance(t.Context(), d)
	want := strings.Replace(doc, "(job=job_gone)", "(error job=job_gone)", 1) +
		"\n**Job Result:** `job_gone` (error)\n\n```\n" + chatdoc.JobLost + "\n```\n"
	ts.ed.waitFor(t, "the lost job's recovery", func() bool { return ts.ed.text(uri) == want })
	ts.s.Advance(t.Context(), d)
	if got := ts.ed.text(uri); got != want {
		t.Fatalf("a second step changed the recovered document:\n%s", got)
	}
}
