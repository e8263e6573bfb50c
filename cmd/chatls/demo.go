package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/internal/fileuri"
	"github.com/chatls/chatls/session"
)

// demoDocument is a model turn asking for two tools: a read the default
// policy approves, and a bash call that waits for the user.
const demoDocument = "@System:\nYou are a careful assistant.\n\n@You:\nWhat does notes.txt say, and which folder are we in?\n\n@Assistant:\nI'll read the file and ask the shell.\n\n**Tool Use:** `read` (`toolu_demo_read`)\n\n```json\n{\"path\":\"notes.txt\",\"offset\":null,\"limit\":null,\"label\":\"reading notes\"}\n```\n\n**Tool Use:** `bash` (`toolu_demo_bash`)\n\n```json\n{\"command\":\"echo \\\"hello from bash in $(basename \\\"$PWD\\\")\\\"\",\"timeout\":null,\"label\":\"saying hello\"}\n```\n\n@You:\n"

// runDemo plays the whole approval cycle on the session every editor and
// chatls send drive, in this process, and prints each step.
func runDemo(args []string, stdout, stderr io.Writer) int {
	if err := demo(stdout); err != nil {
		fmt.Fprintln(stderr, "chatls demo:", err)
		return 1
	}
	return 0
}

func demo(out io.Writer) error {
	work, err := os.MkdirTemp("", "chatls-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	ws := filepath.Join(work, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("Buy milk.\nShip chatls.\n"), 0o644); err != nil {
		return err
	}
	docPath := filepath.Join(ws, "demo.chat")
	if err := os.WriteFile(docPath, []byte(demoDocument), 0o644); err != nil {
		return err
	}
	// The built-in scripted model: offline, no key (SPEC §7 "script").
	script := filepath.Join(work, "responses.json")
	if err := os.WriteFile(script, []byte(demoResponses), 0o644); err != nil {
		return err
	}
	userConfig := filepath.Join(work, "config.toml")
	if err := os.WriteFile(userConfig, []byte("provider = \"demo\"\n[providers.demo]\ntype = \"script\"\nfile = \""+script+"\"\n"), 0o644); err != nil {
		return err
	}
	uri := fileuri.FromPath(docPath)
	step := func(n int, title string) { fmt.Fprintf(out, "\n== %d. %s\n", n, title) }

	ed := newDemoEditor(uri, demoDocument)
	sess := session.New(session.Options{UserConfigPath: userConfig, StateDir: filepath.Join(work, "state"), NoCustomTools: true}, ed)
	ed.sess = sess
	defer sess.Close()
	sess.Start([]string{ws}, chatdoc.UTF8, nil)
	step(1, fmt.Sprintf("started a chatls %s session (the one every editor and chatls send drive); workspace %s", version, ws))

	d := sess.Open(uri, demoDocument, 1)
	step(2, "opened demo.chat: chatls only analyses (nothing edited, nothing run)")
	doc := sess.Latest(d)
	for _, dg := range sess.Diagnostics(d, doc, true) {
		fmt.Fprintf(out, "   line %d: %s\n", doc.Lines.LineOf(dg.Span.Start)+1, dg.Message)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	step(3, "chatls.advance: categorize by policy (read is approved by $default, bash asks)")
	report := sess.Advance(ctx, d)
	if err := ed.waitFor(20*time.Second, "the read result", func(text string) bool { return strings.Contains(text, "Ship chatls.") }); err != nil {
		return err
	}
	seen := ed.printEdits(out, 0)
	fmt.Fprintf(out, "   advance answered %s\n", compactJSON(report))

	step(4, "inlay hints: what each pending call will do")
	doc = sess.Latest(d)
	for _, h := range sess.Hints(d, doc, chatdoc.Span{Start: 0, End: doc.Len()}) {
		fmt.Fprintf(out, "   line %d: %s\n", doc.Lines.LineOf(h.At)+1, h.Label)
	}

	step(5, "code actions at the pending bash placeholder")
	bash := doc.ToolUse("toolu_demo_bash")
	approve := ""
	for _, o := range sess.Offers(d, doc, doc.ToolResult(bash.ID), bash) {
		fmt.Fprintf(out, "   - %s\n", o.Title)
		if o.Action == cycle.ActApprove {
			approve = o.Title
		}
	}
	if approve == "" {
		return fmt.Errorf("no Approve action was offered")
	}

	step(6, "the user applies the first action: approving is an edit of the status; chatls runs the command and writes its output")
	if err := ed.typeText("status=pending", "status=approved"); err != nil {
		return err
	}
	if err := ed.waitFor(20*time.Second, "the bash result", func(text string) bool {
		return strings.Contains(text, "hello from bash in workspace")
	}); err != nil {
		return err
	}
	seen = ed.printEdits(out, seen)

	step(7, "chatls.advance again: nothing left to approve, so the conversation goes to the model (phase 3; a built-in scripted model, offline)")
	report = sess.Advance(ctx, d)
	fmt.Fprintf(out, "   advance answered %s\n", compactJSON(report))
	if err := ed.waitFor(20*time.Second, "the model's answer", func(text string) bool {
		return strings.HasSuffix(text, "the folder workspace.\n\n@You:\n\n")
	}); err != nil {
		return err
	}
	fmt.Fprintf(out, "   the answer streamed in as %d edits; the last one left an empty @You: for the next question\n", ed.editCount()-seen)
	fmt.Fprintf(out, "\n== the document now\n%s", ed.current())
	fmt.Fprintln(out, "\n== next: your own model — see docs/providers.md, then `chatls send FILE` or chatls.send in your editor")
	return nil
}

// demoResponses is the scripted model: the n-th request of the demo's
// conversation (counted by its answers) plays the n-th response.
const demoResponses = `{"responses": [
  {"text": "I'll read the file and ask the shell."},
  {"text": "notes.txt asks you to buy milk and ship chatls, and bash runs in the folder workspace.", "delayMs": 20, "usage": {"InputTokens": 412, "OutputTokens": 14}}
]}`

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
