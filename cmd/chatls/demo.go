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

	"github.com/aymanbagabas/go-udiff"

	"github.com/chatls/chatls/internal/lspclient"
)

// demoDocument is a model turn asking for two tools: a read the default
// policy approves, and a bash call that waits for the user.
const demoDocument = "@System:\nYou are a careful assistant.\n\n@You:\nWhat does notes.txt say, and which folder are we in?\n\n@Assistant:\nI'll read the file and ask the shell.\n\n**Tool Use:** `read` (`toolu_demo_read`)\n\n```json\n{\"path\":\"notes.txt\",\"offset\":null,\"limit\":null,\"label\":\"reading notes\"}\n```\n\n**Tool Use:** `bash` (`toolu_demo_bash`)\n\n```json\n{\"command\":\"echo \\\"hello from bash in $(basename \\\"$PWD\\\")\\\"\",\"timeout\":null,\"label\":\"saying hello\"}\n```\n\n@You:\n"

// runDemo plays the whole approval cycle against the real server binary
// (this executable, started as a child over pipes) and prints each step.
func runDemo(args []string, stdout, stderr io.Writer) int {
	if err := demo(stdout); err != nil {
		fmt.Fprintln(stderr, "chatls demo:", err)
		return 1
	}
	return 0
}

func demo(out io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
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
	userConfig := filepath.Join(work, "config", "chatls", "config.toml")
	if err := os.MkdirAll(filepath.Dir(userConfig), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(userConfig, []byte("provider = \"demo\"\n[providers.demo]\ntype = \"script\"\nfile = \""+script+"\"\n"), 0o644); err != nil {
		return err
	}
	uri := lspclient.PathURI(docPath)
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(work, "state"), "XDG_CONFIG_HOME="+filepath.Join(work, "config"))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	step := func(n int, title string) { fmt.Fprintf(out, "\n== %d. %s\n", n, title) }

	c, err := lspclient.Start(ctx, self, []string{"--log-level", "warn"}, env, lspclient.Options{RootDir: ws})
	if err != nil {
		return err
	}
	defer c.Shutdown(context.Background())
	init, err := c.Initialize(ctx)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	info, _ := init["serverInfo"].(map[string]any)
	step(1, fmt.Sprintf("started %v %v over stdio; workspace %s", info["name"], info["version"], ws))

	if err := c.Open(ctx, uri, demoDocument); err != nil {
		return err
	}
	step(2, "opened demo.chat: the server only analyses (nothing edited, nothing run)")
	if err := c.WaitFor(5*time.Second, "diagnostics", func(s *lspclient.State) bool { return s.Diagnostics(uri) != nil }); err != nil {
		return err
	}
	for _, d := range c.Diagnostics(uri) {
		fmt.Fprintf(out, "   line %d: %s\n", d.Range.Start.Line+1, d.Message)
	}

	step(3, "chatls.advance: categorize by policy (read is approved by $default, bash asks)")
	var report map[string]any
	if err := c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "chatls.advance", "arguments": []any{map[string]any{"uri": uri}}}, &report); err != nil {
		return err
	}
	if err := c.WaitFor(10*time.Second, "the read result", func(s *lspclient.State) bool {
		return strings.Contains(s.Text(uri), "Ship chatls.")
	}); err != nil {
		return err
	}
	printEdits(out, c, 0)
	seen := len(c.Events())
	fmt.Fprintf(out, "   advance answered %s\n", compactJSON(report))

	step(4, "inlay hints: what each pending call will do")
	var hints []struct {
		Position lspclient.Position `json:"position"`
		Label    string             `json:"label"`
	}
	if err := c.Call(ctx, "textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 1000, "character": 0}}}, &hints); err != nil {
		return err
	}
	for _, h := range hints {
		fmt.Fprintf(out, "   line %d: %s\n", h.Position.Line+1, h.Label)
	}

	step(5, "code actions at the pending bash placeholder")
	pos, err := c.PositionOf(uri, "status=pending")
	if err != nil {
		return err
	}
	var actions []struct {
		Title string          `json:"title"`
		Edit  json.RawMessage `json:"edit"`
	}
	if err := c.Call(ctx, "textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": map[string]any{"start": pos, "end": pos}, "context": map[string]any{"diagnostics": []any{}}}, &actions); err != nil {
		return err
	}
	var approve json.RawMessage
	for _, a := range actions {
		fmt.Fprintf(out, "   - %s\n", a.Title)
		if strings.HasPrefix(a.Title, "Approve bash") {
			approve = a.Edit
		}
	}
	if approve == nil {
		return fmt.Errorf("no Approve action was offered")
	}

	step(6, "the user applies \"Approve bash\": an edit of the status; the server runs the command and writes its output")
	var edit struct {
		DocumentChanges []struct {
			Edits []lspclient.TextEdit `json:"edits"`
		} `json:"documentChanges"`
	}
	if err := json.Unmarshal(approve, &edit); err != nil || len(edit.DocumentChanges) == 0 {
		return fmt.Errorf("unexpected approve edit: %s", approve)
	}
	if err := c.Change(ctx, uri, edit.DocumentChanges[0].Edits); err != nil {
		return err
	}
	if err := c.WaitFor(20*time.Second, "the bash result", func(s *lspclient.State) bool {
		return strings.Contains(s.Text(uri), "hello from bash in workspace")
	}); err != nil {
		return err
	}
	printEdits(out, c, seen)

	step(7, "chatls.advance again: nothing left to approve, so the conversation goes to the model (phase 3; a built-in scripted model, offline)")
	seen = len(c.Events())
	if err := c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "chatls.advance", "arguments": []any{map[string]any{"uri": uri}}}, &report); err != nil {
		return err
	}
	fmt.Fprintf(out, "   advance answered %s\n", compactJSON(report))
	if err := c.WaitFor(20*time.Second, "the model's answer", func(s *lspclient.State) bool {
		return strings.HasSuffix(s.Text(uri), "the folder workspace.\n\n@You:\n\n")
	}); err != nil {
		return err
	}
	fmt.Fprintf(out, "   the answer streamed in as %d edits; the last one left an empty @You: for the next question\n", countEdits(c, seen))
	fmt.Fprintf(out, "\n== the document now\n%s", c.Doc(uri).Text)
	fmt.Fprintln(out, "\n== next: your own model — see docs/providers.md, then `chatls send FILE` or chatls.send in your editor")
	return nil
}

// demoResponses is the scripted model: the n-th request of the demo's
// conversation (counted by its answers) plays the n-th response.
const demoResponses = `{"responses": [
  {"text": "I'll read the file and ask the shell."},
  {"text": "notes.txt asks you to buy milk and ship chatls, and bash runs in the folder workspace.", "usage": {"InputTokens": 412, "OutputTokens": 14}}
]}`

// countEdits counts the server's edits since event index from.
func countEdits(c *lspclient.Client, from int) int {
	n := 0
	for _, e := range c.Events()[from:] {
		if e.Kind == "applyEdit" {
			n++
		}
	}
	return n
}

// printEdits shows the server's edits since event index from as unified diffs.
func printEdits(out io.Writer, c *lspclient.Client, from int) {
	for _, e := range c.Events()[from:] {
		if e.Kind != "applyEdit" {
			continue
		}
		fmt.Fprintf(out, "   server edit %q:\n", e.Label)
		diff := udiff.Unified("before", "after", e.Before, e.After)
		for _, line := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
			fmt.Fprintf(out, "   | %s\n", line)
		}
	}
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
