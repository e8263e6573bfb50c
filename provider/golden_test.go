package provider

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/aymanbagabas/go-udiff"
	"github.com/chatls/chatls/chatdoc"
)

var update = flag.Bool("update", false, "rewrite golden request bodies")

var goldenTools = []ToolDef{
	{Name: "bash", Description: "Run a shell command", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"],"additionalProperties":false}`)},
	{Name: "fs:read_file", Description: "Read a file (MCP server fs)", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
}

// goldenCase is one conversation sent to one API with one set of
// parameters; its body is testdata/golden/NAME.json.
type goldenCase struct {
	name, doc, api, model string
	params                map[string]any
	noTools               bool
}

var goldenCases = []goldenCase{
	{name: "plain.anthropic", doc: "plain.chat", api: "anthropic", model: "claude-sonnet-4-6", noTools: true},
	{name: "plain.anthropic-haiku-budget", doc: "plain.chat", api: "anthropic", model: "claude-haiku-4-5", params: map[string]any{"max_tokens": 4000.0, "thinking": "high", "cache_retention": "none"}, noTools: true},
	{name: "plain.anthropic-long-cache-off", doc: "plain.chat", api: "anthropic", model: "claude-opus-4-5", params: map[string]any{"thinking": false, "temperature": 0.2, "cache_retention": "long"}, noTools: true},
	{name: "plain.openai", doc: "plain.chat", api: "openai", model: "gpt-5.4", params: map[string]any{"thinking": "max"}, noTools: true},
	{name: "plain.openai-off", doc: "plain.chat", api: "openai", model: "gpt-5.4", params: map[string]any{"thinking": false, "temperature": 0.5, "cache_retention": "long"}, noTools: true},
	{name: "plain.chat", doc: "plain.chat", api: "openai-chat", model: "qwen3:8b", noTools: true},
	{name: "plain.gemini", doc: "plain.chat", api: "gemini", model: "gemini-3.1-pro-preview", noTools: true},
	{name: "plain.gemini-budget", doc: "plain.chat", api: "vertex", model: "gemini-2.5-pro", params: map[string]any{"vertex": map[string]any{"thinking_budget": 2000.0}}, noTools: true},
	{name: "tools.anthropic", doc: "tools.chat", api: "anthropic", model: "claude-sonnet-4-6"},
	{name: "tools.openai", doc: "tools.chat", api: "openai", model: "gpt-5.4"},
	{name: "tools.chat", doc: "tools.chat", api: "openai-chat", model: "qwen3:8b"},
	{name: "tools.gemini", doc: "tools.chat", api: "gemini", model: "gemini-3.1-pro-preview"},
	{name: "thinking.anthropic", doc: "thinking.chat", api: "anthropic", model: "claude-sonnet-4-6", noTools: true},
	{name: "thinking.anthropic-drop", doc: "thinking.chat", api: "anthropic", model: "claude-sonnet-4-6", params: map[string]any{"thinking": map[string]any{"level": "low", "foreign": "drop"}}, noTools: true},
	{name: "thinking.openai", doc: "thinking.chat", api: "openai", model: "gpt-5.4", noTools: true},
	{name: "thinking.chat", doc: "thinking.chat", api: "openai-chat", model: "deepseek-reasoner", noTools: true},
	{name: "thinking.gemini", doc: "thinking.chat", api: "gemini", model: "gemini-3.1-pro-preview", noTools: true},
	{name: "files.anthropic", doc: "files.chat", api: "anthropic", model: "claude-sonnet-4-6", noTools: true},
	{name: "files.openai", doc: "files.chat", api: "openai", model: "gpt-5.4", noTools: true},
	{name: "files.chat", doc: "files.chat", api: "openai-chat", model: "llava", noTools: true},
	{name: "files.gemini", doc: "files.chat", api: "gemini", model: "gemini-3.1-pro-preview", noTools: true},
}

func goldenPrompt(t *testing.T, c goldenCase) (*Prompt, []Problem) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "conversations", c.doc))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := PromptOptions{DocPath: path}
	if !c.noTools {
		opts.Tools = goldenTools
	}
	// The cache key is a hash of the path, which differs per checkout.
	p, problems := BuildPrompt(chatdoc.Parse(string(text)), opts)
	p.CacheKey = "chatls-testkey"
	return p, problems
}

// The exact JSON chatls sends, per conversation and API. Rewrite with
// -update, then read the diff against the API's reference.
func TestGoldenRequestBodies(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			p, problems := goldenPrompt(t, c)
			body := bodyFor(t, c.api, c.model, p, problems, c.params)
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, body, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			file := filepath.Join("testdata", "golden", c.name+".json")
			checkGoldenBody(t, file, pretty.Bytes())
		})
	}
}

// bodyFor is the body chatls sends for the prompt through the built-in
// entry of the API (Chat Completions through ollama); an Error problem
// fails the test.
func bodyFor(t *testing.T, api, model string, p *Prompt, problems []Problem, params map[string]any) []byte {
	t.Helper()
	for _, pr := range problems {
		if pr.Severity == Error {
			t.Fatalf("problem: %+v", pr)
		}
	}
	entry := Builtins()[map[string]string{"anthropic": "anthropic", "openai": "openai", "openai-chat": "ollama", "gemini": "gemini", "vertex": "vertex"}[api]]
	body, err := Body(&Request{API: api, Entry: entry.Name, Model: model, Prompt: p, Parameters: params, Info: entry.ModelInfo(model)})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// checkGoldenBody compares a request body as sent (indented) with its
// golden file, or writes the file with -update.
func checkGoldenBody(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("%s differs (run with -update and review):\n%s", file, udiff.Unified("golden", "sent", string(want), string(got)))
	}
}
