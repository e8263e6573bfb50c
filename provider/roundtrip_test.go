package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// An answer streamed into a document the way the server writes it
// (chatdoc.Response) is read back as the same message, and the next request
// carries its signed thinking and tool uses to the same provider: what
// Flemma needs to continue the file, and what Anthropic needs to accept it.
func TestStreamedAnswerGoesBackSigned(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: sse(t, "anthropic-tool.sse")})
	question := "@You:\nlist the files\n"
	var resp chatdoc.Response
	doc := question + resp.Start(question)
	c, _, err := send(t, &Request{API: "anthropic", Model: "claude-sonnet-4-6", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range c.events {
		switch ev.Kind {
		case EventText:
			doc += resp.Text(ev.Text)
		case EventToolUse:
			doc += resp.ToolUse(ev.Tool.Name, ev.Tool.ID, ev.Tool.Input)
		case EventThinking:
			resp.Thinking(chatdoc.ResponseThinking{Text: ev.Thinking.Text, Signature: ev.Thinking.Signature, Redacted: ev.Thinking.Redacted})
		}
	}
	doc += resp.End("")
	doc += "**Tool Result:** `toolu_01A`\n\n```\na.txt\n```\n\n**Tool Result:** `toolu_01B`\n\n```\nok\n```\n"
	parsed := chatdoc.Parse(doc)
	// The fixture's second call was cut mid-input: kept as the model sent
	// it, and the document says so.
	if len(parsed.Diagnostics()) != 1 || parsed.Diagnostics()[0].ToolID != "toolu_01B" || !strings.Contains(doc, "{\"command\": \"ls\n```") {
		t.Fatalf("diagnostics %+v in\n%s", parsed.Diagnostics(), doc)
	}
	p, problems := BuildPrompt(parsed, PromptOptions{})
	for _, pr := range problems {
		if pr.Severity == Error {
			t.Errorf("problem %+v", pr)
		}
	}
	raw, err := Body(&Request{API: "anthropic", Model: "claude-sonnet-4-6", Prompt: p, Info: nil})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Messages) != 3 {
		t.Fatalf("%v %s", err, raw)
	}
	assistant := string(raw[strings.Index(string(raw), `"role":"assistant"`):])
	for _, want := range []string{`"type":"thinking"`, `"signature":"EqQBCkYIBxgCKkB0"`, `"thinking":"The user wants a listing."`, `"id":"toolu_01A"`, `"input":{"path":"./src"}`} {
		if !strings.Contains(assistant, want) {
			t.Errorf("the next request lacks %s:\n%s", want, raw)
		}
	}
}
