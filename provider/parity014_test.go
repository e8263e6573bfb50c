package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/google/go-cmp/cmp"
)

// Flemma 0.12–0.14 parity on the send side: the assertions of Flemma's
// code and specs that changed or were not restated for 0.11
// (parity_test.go), each named by the file it comes from. Where chatls
// departs from Flemma on purpose the name says so and why.
var parity014Cases = []parityCase{
	// lua/flemma/provider/openai_chat.lua: is_native_thinking (unsigned, or
	// signed with the provider's own name) and build_request (the last own
	// block with text is reasoning_content; wrap_foreign_thinking's text is
	// put before the trimmed text runs, all joined with "").
	{spec: "openai-chat: unsigned thinking is reasoning_content, another provider's is <thinking> text before the answer", api: "openai-chat", model: "m",
		chat: "@You:\nHello\n\n@Assistant:\nThe answer is 42.\n\n<thinking>\nLocal reasoning.\n</thinking>\n" +
			"<thinking anthropic:signature=\"c2ln\">\nClaude planned.\n</thinking>\n\n@You:\nThanks\n",
		checks: []parityCheck{{"messages.1.reasoning_content", "Local reasoning."},
			{"messages.1.content", "<thinking>\nClaude planned.\n</thinking>The answer is 42."}}},
	{spec: "openai-chat: only another provider's thinking: no reasoning_content", api: "openai-chat", model: "m",
		chat:   "@You:\nHello\n\n@Assistant:\nHi.\n\n<thinking openai:signature=\"e30=\">\nGPT planned.\n</thinking>\n\n@You:\nThanks\n",
		checks: []parityCheck{{"messages.1.reasoning_content", absent}, {"messages.1.content", "<thinking>\nGPT planned.\n</thinking>Hi."}}},
	{spec: "openai-chat: thinking.foreign=drop leaves another provider's thinking out, keeps the own", api: "openai-chat", model: "m",
		params: map[string]any{"thinking": map[string]any{"level": "high", "foreign": "drop"}},
		chat:   "@You:\nHello\n\n@Assistant:\nHi.\n\n<thinking>\nMine.\n</thinking>\n<thinking vertex:signature=\"c2ln\">\nGemini planned.\n</thinking>\n\n@You:\nThanks\n",
		checks: []parityCheck{{"messages.1.reasoning_content", "Mine."}, {"messages.1.content", "Hi."}}},
	{spec: "openai-chat: thinking signed with the entry's own name is its own", api: "openai-chat", model: "m",
		chat:   "@You:\nHello\n\n@Assistant:\nHi.\n\n<thinking ollama:signature=\"x\">\nOwn.\n</thinking>\n\n@You:\nThanks\n",
		checks: []parityCheck{{"messages.1.reasoning_content", "Own."}, {"messages.1.content", "Hi."}}},
	{spec: "openai-chat: an unsigned redacted block counts as the model's own (Flemma checks no redacted flag there)", api: "openai-chat", model: "m",
		chat:   "@You:\nHello\n\n@Assistant:\nHi.\n\n<thinking redacted>\nOPAQUE\n</thinking>\n\n@You:\nThanks\n",
		checks: []parityCheck{{"messages.1.reasoning_content", "OPAQUE"}, {"messages.1.content", "Hi."}}},
	// openai_chat.lua build_request: user parts are text, image and
	// text_file; a pdf part is skipped (no media, no placeholder text).
	{spec: "openai-chat: a PDF is left out, the text around it stays a plain string", api: "openai-chat", model: "m",
		chat: "@You:\nSummarize @./report.pdf please\n", files: map[string]string{"report.pdf": "%PDF-1.4\n%%EOF\n"},
		checks: []parityCheck{{"messages.0.content", "Summarize  please"}}},
	{spec: "openai-chat: a PDF beside an image is left out of the content array", api: "openai-chat", model: "m",
		chat:  "@You:\nCompare @./pic.png with @./report.pdf\n",
		files: map[string]string{"pic.png": "\x89PNG\r\n\x1a\n", "report.pdf": "%PDF-1.4\n%%EOF\n"},
		checks: []parityCheck{{"messages.0.content.0.text", "Compare "}, {"messages.0.content.1.type", "image_url"},
			{"messages.0.content.2.text", " with "}, {"messages.0.content.3", absent}}},
	// lua/flemma/provider/openai_responses.lua: input_file.filename is
	// part.filename, the reference's path (templating/eval.lua include():
	// resolved against the document's directory). chatls sends the path as
	// the document writes it: a local absolute path (the user's home) is
	// not the model's business (as the cache key, SPEC §7).
	{spec: "openai: input_file.filename is the path as written, not its last element", api: "openai", model: "gpt-5.4",
		chat: "@You:\nSummarize @./docs/q3.pdf\n", files: map[string]string{"docs/q3.pdf": "%PDF-1.4\n%%EOF\n"},
		checks: []parityCheck{{"input.0.content.1.type", "input_file"}, {"input.0.content.1.filename", "./docs/q3.pdf"}}},
	// Anthropic's document title and Gemini's displayName stay the file's
	// last element (path_util.basename).
	{spec: "anthropic: the document title is still the file name", api: "anthropic", model: "claude-sonnet-4-5",
		chat: "@You:\nSummarize @./docs/q3.pdf\n", files: map[string]string{"docs/q3.pdf": "%PDF-1.4\n%%EOF\n"},
		checks: []parityCheck{{"messages.0.content.1.title", "q3.pdf"}}},
	// base.lua wrap_foreign_thinking, unchanged in every Flemma release
	// this was checked against (0.11 to 0.13.1, the newest published): the
	// other provider's thinking goes as "<thinking>\n…\n</thinking>" text.
	{spec: "anthropic: another provider's thinking is one <thinking> text block", api: "anthropic", model: "claude-sonnet-4-5",
		chat:   "@You:\nHello\n\n@Assistant:\nHi.\n\n<thinking openai:signature=\"e30=\">\nGPT planned.\n</thinking>\n<thinking>\nNotes.\n</thinking>\n\n@You:\nThanks\n",
		checks: []parityCheck{{"messages.1.content.0.text", "<thinking>\nGPT planned.\n\nNotes.\n</thinking>"}, {"messages.1.content.1.text", "Hi."}}},
}

func TestFlemma014Parity(t *testing.T) { checkParity(t, parity014Cases) }

// Sending to Chat Completions says which PDFs it left out (Flemma drops
// them without a word), before the request goes out.
func TestChatCompletionsSaysWhatItLeftOut(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), []byte("%PDF-1.4\n%%EOF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, problems := BuildPrompt(chatdoc.Parse("@You:\nSummarize @./report.pdf\n"), PromptOptions{DocPath: filepath.Join(dir, "c.chat")})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	var notices []string
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no request: the notices come before it
	_, _ = Send(ctx, &Request{API: "openai-chat", Entry: "ollama", Model: "m", Prompt: p, Conn: Conn{BaseURL: "http://127.0.0.1:1/v1"}}, func(ev Event) {
		if ev.Kind == EventNotice {
			notices = append(notices, ev.Text)
		}
	})
	want := []string{"./report.pdf is not sent: Chat Completions (ollama) takes no PDF, as in Flemma; choose anthropic, openai, gemini or vertex to send it"}
	if diff := cmp.Diff(want, notices); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}

// The frontmatter of Flemma's docs/templates.md ("Per-buffer overrides with
// flemma.opt"): the aliases set the parameters Flemma's schema aliases
// name (config/schema.lua: timeout, thinking, max_tokens, temperature →
// parameters.*). flemma.opt.cache_retention, which the same docs use, is
// no alias in Flemma's 0.11–0.13 schema (its proxy reports "unknown key");
// chatls reads it as its docs and Flemma before 0.11 (opt.lua) do.
func TestFlemma014FrontmatterAliases(t *testing.T) {
	ops := frontmatterOps(t, `flemma.opt.thinking = "medium"
flemma.opt.temperature = 0.3
flemma.opt.max_tokens = 8000
flemma.opt.cache_retention = "none"`)
	sel, problems, err := Select(config.Merge(config.Settings{Provider: "gemini", Model: "gemini-2.5-pro"}), mustEntries(t, nil), ops)
	if err != nil || len(problems) != 0 {
		t.Fatalf("%v %v", problems, err)
	}
	for _, c := range []struct {
		api, model string
		want       map[string]any
	}{
		{"gemini", "gemini-2.5-pro", map[string]any{"generationConfig.maxOutputTokens": 8000.0, "generationConfig.temperature": 0.3}},
		{"anthropic", "claude-sonnet-4-5", map[string]any{"max_tokens": 8000.0, "cache_control": absent, "thinking.budget_tokens": 7999.0}},
		{"openai", "gpt-4o", map[string]any{"max_output_tokens": 8000.0, "temperature": 0.3, "prompt_cache_key": absent}},
	} {
		raw, err := Body(&Request{API: c.api, Entry: c.api, Model: c.model, Parameters: sel.Parameters, Info: Builtins()[c.api].ModelInfo(c.model), Prompt: &Prompt{CacheKey: "k"}})
		if err != nil {
			t.Fatal(err)
		}
		var body any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		for path, want := range c.want {
			got, ok := jsonAt(body, path)
			if want == absent && ok || want != absent && (!ok || got != want) {
				t.Errorf("%s: %s = %v (present %v), want %v\n%s", c.api, path, got, ok, want, raw)
			}
		}
	}
}
