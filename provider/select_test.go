package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/frontmatter"
	"github.com/google/go-cmp/cmp"
)

func frontmatterOps(t *testing.T, lua string) []frontmatter.OptionOp {
	t.Helper()
	d := chatdoc.Parse("```lua\n" + lua + "\n```\n@You:\nhi\n")
	if ev := frontmatter.Evaluate(d.Frontmatter); d.Frontmatter == nil || ev.Error != "" {
		t.Fatalf("frontmatter: %+v %+v", d.Frontmatter, ev)
	}
	return frontmatter.Evaluate(d.Frontmatter).Options
}

func mustEntries(t *testing.T, cfg map[string]config.ProviderSettings) map[string]Entry {
	t.Helper()
	e, err := Entries(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The frontmatter chooses as Flemma's flemma.opt does; a provider chosen
// alone takes its own default model, not the settings' model.
func TestSelectFromSettingsAndFrontmatter(t *testing.T) {
	entries := mustEntries(t, nil)
	eff := config.Merge(config.Settings{Provider: "anthropic", Model: "claude-sonnet-4-5", Parameters: map[string]any{"thinking": "high", "anthropic": map[string]any{"thinking_budget": 3000}}})

	sel, problems, err := Select(eff, entries, nil)
	if err != nil || len(problems) != 0 || sel.Entry.Name != "anthropic" || sel.Model != "claude-sonnet-4-5" {
		t.Fatalf("settings alone: %+v %v %v", sel, problems, err)
	}

	sel, _, err = Select(eff, entries, frontmatterOps(t, `flemma.opt.provider = "openai"`))
	if err != nil || sel.Entry.Name != "openai" || sel.Model != DefaultModel("openai") || sel.Model == "" {
		t.Fatalf("provider alone: %+v %v", sel, err)
	}

	ops := frontmatterOps(t, `flemma.opt.thinking = "low"
flemma.opt.parameters.temperature = 0.5
flemma.opt.anthropic.thinking_budget = 5000
flemma.opt.max_tokens = 9000`)
	sel, _, err = Select(eff, entries, ops)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"thinking": "low", "temperature": 0.5, "max_tokens": float64(9000), "anthropic": map[string]any{"thinking_budget": float64(5000)}}
	if diff := cmp.Diff(want, sel.Parameters); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
	if eff.Parameters["anthropic"].(map[string]any)["thinking_budget"] != 3000 {
		t.Error("the frontmatter changed the settings")
	}
	// The budget reaches the body: the specific parameter wins over thinking = "low".
	body, err := Body(&Request{API: "anthropic", Entry: "anthropic", Model: sel.Model, Parameters: sel.Parameters, Info: sel.Entry.ModelInfo(sel.Model), Prompt: &Prompt{}})
	if err != nil {
		t.Fatal(err)
	}
	var b struct {
		Thinking struct {
			BudgetTokens int `json:"budget_tokens"`
		} `json:"thinking"`
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Thinking.BudgetTokens != 5000 || b.MaxTokens != 9000 {
		t.Errorf("body %s", body)
	}
}

func TestSelectModelString(t *testing.T) {
	entries := mustEntries(t, nil)
	sel, _, err := Select(config.Merge(), entries, frontmatterOps(t, `flemma.opt.model = "vertex/gemini-2.5-pro;project_id=acme;location=europe-west4"`))
	if err != nil || sel.Entry.Name != "vertex" || sel.Model != "gemini-2.5-pro" {
		t.Fatalf("%+v %v", sel, err)
	}
	r, err := Prepare(context.Background(), sel, &Keys{Getenv: func(string) string { return "" }}, &Prompt{}, 2)
	if err != nil || r.Conn.Project != "acme" || r.Conn.Location != "europe-west4" || r.Retry.Max != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	// Nothing chosen: Flemma's default provider with its default model.
	sel, _, err = Select(config.Merge(), entries, nil)
	if err != nil || sel.Entry.Name != DefaultProvider || sel.Model != DefaultModel("anthropic") {
		t.Fatalf("%+v %v", sel, err)
	}
	if _, _, err := Select(config.Merge(config.Settings{Provider: "nope"}), entries, nil); err == nil ||
		!strings.Contains(err.Error(), `unknown provider "nope" (configured: anthropic, gemini, ollama, openai, openrouter, vertex)`) {
		t.Errorf("unknown provider: %v", err)
	}
	if _, _, err := Select(config.Merge(config.Settings{Provider: "ollama"}), entries, nil); err == nil || !strings.Contains(err.Error(), "set model") {
		t.Errorf("ollama has no default model: %v", err)
	}
}

// A document never says where the conversation or a key goes.
func TestSelectIgnoresConnectionOptions(t *testing.T) {
	entries := mustEntries(t, nil)
	ops := frontmatterOps(t, `flemma.opt.anthropic.base_url = "https://attacker.example"
flemma.opt.providers.anthropic.baseURL = "https://attacker.example"
flemma.opt.parameters.headers = { x = "y" }
flemma.opt.thinking = "low"`)
	sel, problems, err := Select(config.Merge(), entries, ops)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 3 || problems[0].Line != 1 || !strings.Contains(problems[0].Message, "flemma.opt.anthropic.base_url ignored") {
		t.Fatalf("problems %+v", problems)
	}
	if diff := cmp.Diff(map[string]any{"thinking": "low"}, sel.Parameters); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if sel.Entry.BaseURL != "" {
		t.Errorf("base URL %q", sel.Entry.BaseURL)
	}
}

func TestEntriesFromSettings(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "r.json")
	if err := os.WriteFile(script, []byte(`{"responses":[{"text":"hello"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := 1.5
	entries := mustEntries(t, map[string]config.ProviderSettings{
		"anthropic": {BaseURL: "https://proxy.internal/anthropic"},
		"llama":     {Type: "openai-chat", BaseURL: "http://127.0.0.1:8080/v1", Model: "qwen3", Models: map[string]config.ModelSettings{"qwen3": {Price: &config.Price{Input: &in}}}},
		"groq":      {Type: "openai-chat", BaseURL: "https://api.groq.com/openai/v1", APIKeyEnv: "GROQ_API_KEY"},
		"replay":    {Type: "script", File: script},
	})
	if a := entries["anthropic"]; a.BaseURL != "https://proxy.internal/anthropic" || a.KeyEnv[0] != "ANTHROPIC_API_KEY" || a.API != "anthropic" {
		t.Errorf("a built-in entry keeps what the settings don't change: %+v", a)
	}
	llama := entries["llama"]
	if !llama.NoKey || llama.Default() != "qwen3" || llama.ModelInfo("qwen3").Price.Input != 1.5 {
		t.Errorf("llama %+v", llama)
	}
	keys := &Keys{Getenv: func(string) string { return "" }}
	sel, _, err := Select(config.Merge(config.Settings{Provider: "groq", Model: "llama-3.3-70b"}), entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(context.Background(), sel, keys, &Prompt{}, 4); err == nil || err.Error() != "GROQ_API_KEY is not set" {
		t.Errorf("missing key: %v", err)
	}
	sel, _, err = Select(config.Merge(config.Settings{Provider: "replay"}), entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Model == "" {
		t.Error("a script entry needs no model")
	}
	r, err := Prepare(context.Background(), sel, keys, &Prompt{}, 4)
	if err != nil || r.Script == nil || r.Script.Responses[0].Text != "hello" {
		t.Fatalf("%+v %v", r, err)
	}
	for cfg, want := range map[string]config.ProviderSettings{
		"needs a type":    {BaseURL: "http://x"},
		"needs a baseURL": {Type: "openai-chat"},
		"needs a file":    {Type: "script"},
		"is not one of":   {Type: "bedrock"},
	} {
		if _, err := Entries(map[string]config.ProviderSettings{"x": want}); err == nil || !strings.Contains(err.Error(), cfg) {
			t.Errorf("%+v: %v", want, err)
		}
	}
}

// Agents (SPEC §12): type acp needs a command; the built-in agents are
// entries when their program is on PATH, and a configured one keeps its
// command with the env it adds.
func TestAgentEntries(t *testing.T) {
	old := lookPath
	defer func() { lookPath = old }()
	lookPath = func(name string) (string, error) {
		if name == "claude-code-acp" {
			return "/usr/bin/claude-code-acp", nil
		}
		return "", fmt.Errorf("not found")
	}
	entries, err := Entries(map[string]config.ProviderSettings{
		"mine":   {Type: "acp", Command: []string{"node", "agent.mjs"}, Env: map[string]string{"A": "1"}},
		"codex":  {Env: map[string]string{"B": "2"}},
		"gemini": {},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e := entries["claude-code"]; e.API != "acp" || e.Command[0] != "claude-code-acp" || !e.NoKey {
		t.Errorf("claude-code: %+v", e)
	}
	if _, ok := entries["opencode"]; ok {
		t.Error("opencode is offered although its program is not on PATH")
	}
	if e := entries["mine"]; e.API != "acp" || e.Command[1] != "agent.mjs" || e.Env["A"] != "1" || e.Default() != "mine" {
		t.Errorf("mine: %+v", e)
	}
	if e := entries["codex"]; e.API != "acp" || e.Command[0] != "codex-acp" || e.Env["B"] != "2" {
		t.Errorf("codex: %+v", e)
	}
	if e := entries["gemini"]; e.API != "gemini" {
		t.Errorf("gemini stays the Gemini API: %+v", e)
	}
	if _, err := Entries(map[string]config.ProviderSettings{"x": {Type: "acp"}}); err == nil || !strings.Contains(err.Error(), "needs a command") {
		t.Errorf("acp without a command: %v", err)
	}
}
