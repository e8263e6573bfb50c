package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

func problemsText(ps []Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Message)
	}
	return strings.Join(out, " | ")
}

// What stops a send: a missing or unsupported file, a template error; an
// orphan only warns, in Flemma's words, at its tool use.
func TestPromptProblems(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "c.chat")
	if err := os.WriteFile(filepath.Join(dir, "blob.zip"), []byte("PK\x03\x04\x00\x00\xff\xfe binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "@You:\nsee @./gone.txt and @./blob.zip and {{ nosuch.field }}\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n```json\n{\"command\":\"ls\"}\n```\n"
	d := chatdoc.Parse(text)
	p, problems := BuildPrompt(d, PromptOptions{DocPath: doc})
	got := problemsText(problems)
	for _, want := range []string{"File not found: ./gone.txt", "Unsupported file type for ./blob.zip: application/zip",
		"Template error: ", "Tool call 'bash' (t1) has no matching tool result. A synthetic 'No result provided' error response will be sent to the API."} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %s", want, got)
		}
	}
	for _, pr := range problems {
		if strings.HasPrefix(pr.Message, "File not found") && d.Slice(pr.Span.Start, pr.Span.End) != "@./gone.txt" {
			t.Errorf("span %q", d.Slice(pr.Span.Start, pr.Span.End))
		}
		if strings.HasPrefix(pr.Message, "Tool call") && (pr.Severity != Warning || !strings.HasPrefix(d.Slice(pr.Span.Start, pr.Span.End), "**Tool Use:**")) {
			t.Errorf("orphan problem %+v", pr)
		}
	}
	last := p.Messages[len(p.Messages)-1]
	if last.Role != "user" || last.Parts[0].Kind != PartToolResult || last.Parts[0].Text != OrphanText || !last.Parts[0].IsError {
		t.Fatalf("orphan result %+v", last)
	}
}

// Trailing blank lines, CRLF and other roles are not content; the last
// System message is the prompt; the cache key never holds the path.
func TestPromptShape(t *testing.T) {
	text := "preamble ignored\r\n@System:\r\nold\r\n@System:\r\n  new rules  \r\n@Note:\r\nnot sent\r\n@You:\r\nline one\r\nline two\r\n\r\n\r\n"
	p, problems := BuildPrompt(chatdoc.Parse(text), PromptOptions{DocPath: "/home/u/secret-project/c.chat"})
	if len(problems) != 0 || p.System != "new rules" || len(p.Messages) != 1 || p.Messages[0].Parts[0].Text != "line one\nline two" {
		t.Fatalf("%+v %+v", p, problems)
	}
	// A CRLF run before a tool result loses its line ending, not just "\n".
	crlf := "@Assistant:\r\n**Tool Use:** `bash` (`t1`)\r\n```json\r\n{}\r\n```\r\n@You:\r\nfirst\r\n**Tool Result:** `t1`\r\n```\r\nok\r\n```\r\n"
	q, _ := BuildPrompt(chatdoc.Parse(crlf), PromptOptions{})
	if parts := q.Messages[1].Parts; len(parts) != 2 || parts[0].Text != "first" || parts[1].Kind != PartToolResult {
		t.Fatalf("CRLF parts %+v", parts)
	}
	if strings.Contains(p.CacheKey, "secret") || len(p.CacheKey) < 20 {
		t.Fatalf("cache key %q", p.CacheKey)
	}
}

func TestWireNames(t *testing.T) {
	if WireName("fs:read_file") != "fs__read_file" || ToolName("fs__read_file") != "fs.read_file" || WireName("fs.read_file") != "fs__read_file" {
		t.Fatal("names")
	}
	for in, want := range map[string]string{"toolu_01": "toolu_01", "call.02/x": "call_02_x", "urn:flemma:tool:bash:abc": "urn_flemma_tool_bash_abc",
		"a__": "a", strings.Repeat("x", 70): strings.Repeat("x", 64), "id ü": "id"} {
		if got := WireID(in); got != want {
			t.Errorf("WireID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseModel(t *testing.T) {
	m, err := ParseModel("vertex/gemini-2.5-pro;project_id=x;thinking_budget=2048;cache=true")
	if err != nil || m.Provider != "vertex" || m.Model != "gemini-2.5-pro" || m.Parameters["project_id"] != "x" || m.Parameters["thinking_budget"] != 2048.0 || m.Parameters["cache"] != true {
		t.Fatalf("%+v %v", m, err)
	}
	if m, _ := ParseModel("claude-sonnet-4-6"); m.Provider != "" || m.Model != "claude-sonnet-4-6" {
		t.Fatalf("%+v", m)
	}
	// Flemma 0.14: a quoted value may hold `;`, and stays a string.
	if m, err := ParseModel(`anthropic/claude-sonnet-4-6;stop="a;b";max_tokens="100";temperature=0.5`); err != nil ||
		m.Parameters["stop"] != "a;b" || m.Parameters["max_tokens"] != "100" || m.Parameters["temperature"] != 0.5 {
		t.Errorf("quoted values: %+v %v", m, err)
	}
	if _, err := ParseModel("openai/gpt-5;oops"); err == nil {
		t.Fatal("a parameter without = was accepted")
	}
}

// Keys: variables in order, a clear message when none is set, a command
// asked once per session, its failure never showing its output.
func TestKeys(t *testing.T) {
	env := map[string]string{"GOOGLE_API_KEY": "g-key"}
	k := &Keys{Getenv: func(v string) string { return env[v] }}
	b := Builtins()
	if key, err := k.Key(context.Background(), b["gemini"]); err != nil || key != "g-key" {
		t.Fatal(key, err)
	}
	if _, err := k.Key(context.Background(), b["anthropic"]); err == nil || err.Error() != "ANTHROPIC_API_KEY is not set" {
		t.Fatal(err)
	}
	if key, err := k.Key(context.Background(), b["ollama"]); err != nil || key != "" {
		t.Fatal(key, err)
	}
	count := filepath.Join(t.TempDir(), "count")
	e := Entry{Name: "corp", API: "openai-chat", KeyCommand: []string{"sh", "-c", "echo x >> " + count + "; echo sk-from-command"}}
	for range 3 {
		if key, err := k.Key(context.Background(), e); err != nil || key != "sk-from-command" {
			t.Fatal(key, err)
		}
	}
	if b, _ := os.ReadFile(count); string(b) != "x\n" {
		t.Fatalf("command ran %q", b)
	}
	bad := Entry{Name: "bad", API: "openai-chat", KeyCommand: []string{"sh", "-c", "echo sk-leaked-secret; exit 3"}}
	if _, err := k.Key(context.Background(), bad); err == nil || strings.Contains(err.Error(), "sk-leaked-secret") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatal(err)
	}
	if Redact("key sk-abcdefgh1234 in text", "sk-abcdefgh1234") != "key [redacted] in text" {
		t.Fatal("redact")
	}
}

// The same conversation through the script provider and through a Chat
// Completions server gives the same events.
func TestScriptAndChatAgree(t *testing.T) {
	var script Script
	if err := json.Unmarshal([]byte(`{"responses":[{"thinking":"Need the file.","text":"Reading it.","toolUses":[{"id":"call_1","name":"fs.read_file","input":{"path":"a.txt"}}],
		"usage":{"InputTokens":40,"OutputTokens":20,"CacheReadTokens":10}}]}`), &script); err != nil {
		t.Fatal(err)
	}
	fromScript, _, err := send(t, &Request{API: "script", Model: "demo", Prompt: simplePrompt(), Script: &script})
	if err != nil {
		t.Fatal(err)
	}
	srv := newReplay(t, reply{status: 200, body: strings.Replace(sse(t, "chat-tool.sse"),
		`{"index":1,"id":"call_2","type":"function","function":{"name":"bash","arguments":"{not json"}}`, `{"index":0,"function":{"arguments":""}}`, 1)})
	fromChat, _, err := send(t, &Request{API: "openai-chat", Model: "qwen3", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if fromScript.text != fromChat.text || fromScript.think != fromChat.think || fromScript.usage != fromChat.usage ||
		len(fromScript.tools) != 1 || len(fromChat.tools) != 1 || *fromScript.tools[0] != *fromChat.tools[0] {
		t.Fatalf("script %+v %+v\nchat %+v %+v", fromScript, fromScript.tools, fromChat, fromChat.tools)
	}
}

func TestCost(t *testing.T) {
	info, ok := LookupModel("anthropic", "claude-haiku-4-5")
	if !ok {
		t.Fatal("no haiku")
	}
	usd, ok := Cost(info.Price, Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 1_000_000, CacheWriteTokens: 100_000})
	// 1 + 0.5 + 0.1 + 0.125
	if !ok || usd < 1.7249 || usd > 1.7251 {
		t.Fatalf("cost %v", usd)
	}
	if _, ok := Cost(nil, Usage{InputTokens: 5}); ok {
		t.Fatal("a cost for an unknown price")
	}
	e := Entry{API: "openai-chat", Models: map[string]ModelInfo{"qwen3": {Price: &Price{Input: 0.1, Output: 0.2}}}}
	if i := e.ModelInfo("qwen3"); i == nil || i.Price.Input != 0.1 {
		t.Fatal("override")
	}
}

// A job's result is sent as Flemma sends it: a text part after the
// message's tool results, under the call that started the job.
func TestJobResultsAreSentUnderTheirCall(t *testing.T) {
	doc := chatdoc.Parse("@You:\nbuild\n\n@Assistant:\n**Tool Use:** `bash` (`b1`)\n\n```json\n{\"command\":\"make\",\"flemma.background\":true}\n```\n\n" +
		"@You:\n\n**Tool Result:** `b1` (job=job_1)\n\n```\nRunning in background as job_1.\n```\n\nwhat now?\n\n@Assistant:\nWaiting.\n\n" +
		"@You:\n\n**Job Result:** `job_1`\n\n```\nbuilt\n```\n\n**Job Result:** `job_9` (error)\n\n```\nlate\n```\n\nand?\n")
	p, problems := BuildPrompt(doc, PromptOptions{})
	if len(problems) != 0 {
		t.Fatalf("problems %+v", problems)
	}
	last := p.Messages[len(p.Messages)-1].Parts
	var texts []string
	for _, part := range last {
		texts = append(texts, part.Text)
	}
	want := []string{"[Job result for bash (b1)]\nbuilt", "[Job result for unknown tool (job: job_9)]\nlate", "\nand?"} // text after a block keeps its blank line, as after a tool result
	if !slices.Equal(texts, want) {
		t.Fatalf("parts %q, want %q", texts, want)
	}
}
