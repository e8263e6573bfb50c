package provider

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/google/go-cmp/cmp"
)

// Flemma parity: for the conversations and parameters Flemma 0.11's own
// provider specs build requests for (tests/flemma/provider_*_spec.lua),
// chatls's body holds the values those specs assert, unless SPEC §7 says
// otherwise. The conversations are written here as .chat text; each check
// is one assertion of the spec, named by the spec's test.

// absent marks a key the body must not have.
type absentValue struct{}

var absent = absentValue{}

type parityCheck struct {
	path string // dotted; list indexes, -1 for the last element
	want any    // a JSON value (decoded: float64, string, map, list), or absent
}

type parityCase struct {
	spec, api, model string
	params           map[string]any
	chat             string
	tools            bool
	files            map[string]string // written next to the document
	checks           []parityCheck
}

const oneTurn = "@System:\nBe helpful\n\n@You:\nhello\n\n@Assistant:\nhi\n\n@You:\nworld\n"

var parityCases = []parityCase{
	// provider_anthropic_spec.lua
	{spec: "anthropic: tools are sorted alphabetically by name", api: "anthropic", model: "claude-sonnet-4-20250514", tools: true,
		params: map[string]any{"max_tokens": 100.0}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"tools.0.name", "bash"}, {"tools.1.name", "fs__read_file"}}},
	{spec: "anthropic: cache_retention=short adds ephemeral breakpoints", api: "anthropic", model: "claude-sonnet-4-20250514", tools: true,
		params: map[string]any{"max_tokens": 100.0, "cache_retention": "short"}, chat: oneTurn,
		checks: []parityCheck{{"tools.-1.cache_control", map[string]any{"type": "ephemeral"}}, {"system.0.text", "Be helpful"},
			{"system.0.cache_control", map[string]any{"type": "ephemeral"}}, {"cache_control", map[string]any{"type": "ephemeral"}}}},
	{spec: "anthropic: cache_retention=long adds ephemeral with 1h TTL", api: "anthropic", model: "claude-sonnet-4-20250514", tools: true,
		params: map[string]any{"max_tokens": 100.0, "cache_retention": "long"}, chat: "@System:\nBe helpful\n\n@You:\ntest\n",
		checks: []parityCheck{{"tools.-1.cache_control", map[string]any{"type": "ephemeral", "ttl": "1h"}},
			{"system.0.cache_control", map[string]any{"type": "ephemeral", "ttl": "1h"}}, {"cache_control", map[string]any{"type": "ephemeral", "ttl": "1h"}}}},
	{spec: "anthropic: cache_retention=none adds no cache_control, system is string", api: "anthropic", model: "claude-sonnet-4-20250514", tools: true,
		params: map[string]any{"max_tokens": 100.0, "cache_retention": "none"}, chat: "@System:\nBe helpful\n\n@You:\ntest\n",
		checks: []parityCheck{{"system", "Be helpful"}, {"tools.-1.cache_control", absent}, {"messages.0.content.0.cache_control", absent}, {"cache_control", absent}}},
	{spec: "anthropic: no crash when no tools present with caching enabled", api: "anthropic", model: "claude-sonnet-4-20250514",
		params: map[string]any{"max_tokens": 100.0}, chat: "@System:\nBe helpful\n\n@You:\ntest\n",
		checks: []parityCheck{{"tools", absent}, {"system.0.cache_control", map[string]any{"type": "ephemeral"}}, {"cache_control", map[string]any{"type": "ephemeral"}}}},
	{spec: "anthropic: thinking_budget in params produces thinking config in request", api: "anthropic", model: "claude-sonnet-4-20250514",
		params: map[string]any{"max_tokens": 4000.0, "anthropic": map[string]any{"thinking_budget": 2048.0}}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"thinking.budget_tokens", 2048.0}}},
	{spec: "anthropic: no system field when system prompt is empty", api: "anthropic", model: "claude-sonnet-4-20250514",
		params: map[string]any{"max_tokens": 100.0}, chat: "@System:\n\n@You:\ntest\n", checks: []parityCheck{{"system", absent}}},
	{spec: "anthropic: sets title from filename on PDF document blocks", api: "anthropic", model: "claude-sonnet-4-5",
		params: map[string]any{"max_tokens": 4000.0}, chat: "@You:\nSummarize this PDF @./quarterly_earnings.pdf\n",
		files:  map[string]string{"quarterly_earnings.pdf": "%PDF-1.4\n%%EOF\n"},
		checks: []parityCheck{{"messages.0.content.1.type", "document"}, {"messages.0.content.1.title", "quarterly_earnings.pdf"}}},
	{spec: "anthropic: reorders text after tool_use to text before tool_use", api: "anthropic", model: "claude-sonnet-4-5",
		params: map[string]any{"max_tokens": 4000.0},
		chat: "@You:\nread that file\n\n@Assistant:\n**Tool Use:** `read` (`toolu_1`)\n\n```json\n{\"path\":\"a.txt\"}\n```\n\nSome trailing text after tool use\n\n" +
			"@You:\n**Tool Result:** `toolu_1`\n\n```\nfile contents here\n```\n\nthanks\n",
		checks: []parityCheck{{"messages.1.content.0.type", "text"}, {"messages.1.content.0.text", "Some trailing text after tool use"},
			{"messages.1.content.1.type", "tool_use"}, {"messages.1.content.1.name", "read"}}},
	{spec: "anthropic: should use adaptive thinking for opus-4-6 models", api: "anthropic", model: "claude-opus-4-6",
		params: map[string]any{"max_tokens": 4000.0, "thinking": map[string]any{"level": "high", "foreign": "preserve"}}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"thinking", map[string]any{"type": "adaptive", "display": "summarized"}}, {"output_config", map[string]any{"effort": "high"}}, {"temperature", absent}}},
	{spec: "anthropic: should use budget_tokens for non-opus models", api: "anthropic", model: "claude-sonnet-4-5",
		params: map[string]any{"max_tokens": 4000.0, "thinking": map[string]any{"level": "high"}}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"thinking.type", "enabled"}, {"output_config", absent}}},
	{spec: "anthropic: should map effort level from thinking parameter", api: "anthropic", model: "claude-opus-4-6",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "low"}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"output_config", map[string]any{"effort": "low"}}}},
	{spec: "anthropic: should map thinking='max' to effort='max' on opus-4-6", api: "anthropic", model: "claude-opus-4-6",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "max"}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"output_config", map[string]any{"effort": "max"}}}},
	{spec: "anthropic: should map thinking='minimal' to effort='low' on opus-4-6", api: "anthropic", model: "claude-opus-4-6",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "minimal"}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"output_config", map[string]any{"effort": "low"}}}},
	{spec: "anthropic: should use adaptive thinking for sonnet-4-6 models", api: "anthropic", model: "claude-sonnet-4-6",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "high"}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"thinking", map[string]any{"type": "adaptive", "display": "summarized"}}, {"output_config", map[string]any{"effort": "high"}}, {"temperature", absent}}},
	{spec: "anthropic: should clamp 'max' effort to 'high' on sonnet-4-6", api: "anthropic", model: "claude-sonnet-4-6",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "max"}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"output_config", map[string]any{"effort": "high"}}}},
	{spec: "anthropic: should clamp budget_tokens when budget >= max_tokens", api: "anthropic", model: "claude-sonnet-4-5",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "max"}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"thinking.type", "enabled"}, {"thinking.budget_tokens", 3999.0}}},
	{spec: "anthropic: should use adaptive thinking for opus-4-7 with display='summarized'", api: "anthropic", model: "claude-opus-4-7",
		params: map[string]any{"max_tokens": 16000.0, "thinking": "high"}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"thinking", map[string]any{"type": "adaptive", "display": "summarized"}}, {"output_config", map[string]any{"effort": "high"}}}},
	{spec: "anthropic: should route provider-specific effort='xhigh' to output_config on opus-4-7", api: "anthropic", model: "claude-opus-4-7",
		params: map[string]any{"max_tokens": 16000.0, "anthropic": map[string]any{"effort": "xhigh"}}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"thinking", map[string]any{"type": "adaptive", "display": "summarized"}}, {"output_config", map[string]any{"effort": "xhigh"}}}},
	{spec: "anthropic: should let effort override thinking on opus-4-7", api: "anthropic", model: "claude-opus-4-7",
		params: map[string]any{"max_tokens": 16000.0, "thinking": "low", "anthropic": map[string]any{"effort": "xhigh"}}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"output_config", map[string]any{"effort": "xhigh"}}}},
	{spec: "anthropic: should silently ignore effort on non-adaptive models and honor thinking", api: "anthropic", model: "claude-sonnet-4-5",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "high", "anthropic": map[string]any{"effort": "xhigh"}}, chat: "@You:\ntest\n",
		checks: []parityCheck{{"thinking.type", "enabled"}, {"output_config", absent}}},

	// provider_openai_spec.lua
	{spec: "openai: should use max_output_tokens, input, store=false", api: "openai", model: "gpt-4o",
		params: map[string]any{"max_tokens": 1000.0, "temperature": 0.7}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"max_output_tokens", 1000.0}, {"max_tokens", absent}, {"max_completion_tokens", absent}, {"messages", absent}, {"store", false}, {"temperature", 0.7}}},
	{spec: "openai: should set reasoning.effort and reasoning.summary for reasoning models", api: "openai", model: "o3",
		params: map[string]any{"max_tokens": 4000.0, "openai": map[string]any{"reasoning": "high"}}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"max_output_tokens", 4000.0}, {"reasoning", map[string]any{"effort": "high", "summary": "auto"}}, {"temperature", absent},
			{"reasoning_effort", absent}, {"include", []any{"reasoning.encrypted_content"}}}},
	{spec: "openai: should map thinking='max' to reasoning.effort='high' for non-xhigh models", api: "openai", model: "o3",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "max"}, chat: "@You:\nhi\n", checks: []parityCheck{{"reasoning.effort", "high"}}},
	{spec: "openai: should map thinking='max' to reasoning.effort='xhigh' for gpt-5.2", api: "openai", model: "gpt-5.2",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "max"}, chat: "@You:\nhi\n", checks: []parityCheck{{"reasoning.effort", "xhigh"}}},
	{spec: "openai: should map thinking='minimal' to reasoning.effort='low' for o3", api: "openai", model: "o3",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "minimal"}, chat: "@You:\nhi\n", checks: []parityCheck{{"reasoning.effort", "low"}}},
	{spec: "openai: should omit reasoning for non-reasoning models even when configured", api: "openai", model: "gpt-4o",
		params: map[string]any{"max_tokens": 1000.0, "temperature": 0.5, "thinking": "high", "openai": map[string]any{"reasoning": "high"}}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"max_output_tokens", 1000.0}, {"temperature", 0.5}, {"reasoning", absent}, {"include", absent}}},
	{spec: "openai: should send reasoning.effort='none' when thinking=false on reasoning models", api: "openai", model: "gpt-5.5",
		params: map[string]any{"max_tokens": 4000.0, "thinking": false}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"reasoning", map[string]any{"effort": "none"}}, {"include", absent}}},
	{spec: "openai: should still omit reasoning for non-reasoning models when thinking=false", api: "openai", model: "gpt-4o",
		params: map[string]any{"max_tokens": 1000.0, "temperature": 0.5, "thinking": false}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"reasoning", absent}, {"temperature", 0.5}}},
	{spec: "openai: should clamp gpt-5-pro reasoning to high", api: "openai", model: "gpt-5-pro",
		params: map[string]any{"max_tokens": 4000.0, "openai": map[string]any{"reasoning": "low"}}, chat: "@You:\nhi\n", checks: []parityCheck{{"reasoning.effort", "high"}}},
	{spec: "openai: should clamp low reasoning to medium for pro models without low support", api: "openai", model: "gpt-5.4-pro",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "low"}, chat: "@You:\nhi\n", checks: []parityCheck{{"reasoning.effort", "medium"}}},
	{spec: "openai: should map max reasoning to xhigh for pro models with xhigh support", api: "openai", model: "gpt-5.2-pro",
		params: map[string]any{"max_tokens": 4000.0, "thinking": "max"}, chat: "@You:\nhi\n", checks: []parityCheck{{"reasoning.effort", "xhigh"}}},
	{spec: "openai: should use custom reasoning_summary when configured", api: "openai", model: "o3",
		params: map[string]any{"max_tokens": 4000.0, "openai": map[string]any{"reasoning": "medium", "reasoning_summary": "detailed"}}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"reasoning.summary", "detailed"}}},
	{spec: "openai: should always use developer role for system messages", api: "openai", model: "gpt-4o",
		params: map[string]any{"max_tokens": 1000.0, "temperature": 0.5}, chat: "@System:\nBe brief.\n\n@You:\nhi\n",
		checks: []parityCheck{{"input.0.role", "developer"}}},
	{spec: "openai: assistant text as a completed output message, commentary before tools, final_answer after", api: "openai", model: "gpt-4o",
		params: map[string]any{"max_tokens": 1000.0, "temperature": 0.7},
		chat: "@You:\nCalculate 2+2\n\n@Assistant:\nI'll calculate it.\n\n**Tool Use:** `calculator` (`call_abc`)\n\n```json\n{\"expression\":\"2+2\"}\n```\n\n" +
			"@You:\n**Tool Result:** `call_abc`\n\n```\n4\n```\n\n@Assistant:\nThe answer is 4.\n\n@You:\nthanks\n",
		checks: []parityCheck{{"input.1.type", "message"}, {"input.1.role", "assistant"}, {"input.1.status", "completed"}, {"input.1.phase", "commentary"},
			{"input.1.content", []any{map[string]any{"type": "output_text", "text": "I'll calculate it.", "annotations": []any{}}}},
			{"input.2.type", "function_call"}, {"input.2.status", "completed"}, {"input.2.call_id", "call_abc"}, {"input.2.name", "calculator"},
			{"input.3.type", "function_call_output"}, {"input.3.call_id", "call_abc"}, {"input.3.output", "4"},
			{"input.4.phase", "final_answer"}, {"input.4.content.0.text", "The answer is 4."}}},
	{spec: "openai: should label all split assistant text segments as commentary, with unique msg_1_ IDs", api: "openai", model: "gpt-4o",
		params: map[string]any{"max_tokens": 1000.0},
		chat: "@You:\nCalculate 2+2\n\n@Assistant:\nFirst text.\n\n**Tool Use:** `calculator` (`call_abc`)\n\n```json\n{\"expression\":\"2+2\"}\n```\n\nSecond text.\n\n" +
			"@You:\n**Tool Result:** `call_abc`\n\n```\n4\n```\n",
		checks: []parityCheck{{"input.1.phase", "commentary"}, {"input.1.id", "msg_1_1"}, {"input.3.phase", "commentary"}, {"input.3.id", "msg_1_2"}}},
	{spec: "openai: should propagate strict field on tool definitions", api: "openai", model: "gpt-4o", tools: true,
		params: map[string]any{"max_tokens": 1000.0}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"tools.0.name", "bash"}, {"tools.0.strict", true}, {"tools.1.name", "fs__read_file"}, {"tools.1.strict", absent}}},
	{spec: "openai: should replay reasoning items from thinking blocks with signature", api: "openai", model: "o3",
		params: map[string]any{"openai": map[string]any{"reasoning": "high"}},
		chat:   "@You:\nhi\n\n@Assistant:\nThe answer.\n\n<thinking openai:signature=\"" + reasoningSignature + "\">\nsummary\n</thinking>\n\n@You:\nmore\n",
		checks: []parityCheck{{"input.1.type", "reasoning"}, {"input.1.id", "rs_test_001"}, {"input.1.encrypted_content", "encrypted_data_here"}, {"input.2.type", "message"}}},
	{spec: "openai: should skip thinking blocks without signature", api: "openai", model: "gpt-4o", params: map[string]any{"thinking": map[string]any{"foreign": "drop"}},
		chat:   "@You:\nhi\n\n@Assistant:\nThe answer.\n\n<thinking>\nsome old thinking\n</thinking>\n\n@You:\nmore\n",
		checks: []parityCheck{{"input.1.type", "message"}, {"input.2.role", "user"}}},
	{spec: "openai: prompt_cache_key and in_memory retention by default (the key a hash of the path, SPEC §7)", api: "openai", model: "gpt-5",
		chat: "@You:\nhi\n", checks: []parityCheck{{"prompt_cache_retention", "in_memory"}}},
	{spec: "openai: 24h retention for cache_retention=long", api: "openai", model: "gpt-5", params: map[string]any{"cache_retention": "long"},
		chat: "@You:\nhi\n", checks: []parityCheck{{"prompt_cache_retention", "24h"}}},
	{spec: "openai: neither caching parameter for cache_retention=none", api: "openai", model: "gpt-5", params: map[string]any{"cache_retention": "none"},
		chat: "@You:\nhi\n", checks: []parityCheck{{"prompt_cache_key", absent}, {"prompt_cache_retention", absent}}},

	// provider_openai_chat_spec.lua
	{spec: "openai-chat: messages, stream options, max_tokens, model and temperature", api: "openai-chat", model: "custom-model",
		params: map[string]any{"max_tokens": 2000.0, "temperature": 0.5}, chat: "@System:\nYou are helpful.\n\n@You:\nHello world\n",
		checks: []parityCheck{{"input", absent}, {"stream", true}, {"stream_options.include_usage", true}, {"max_tokens", 2000.0}, {"max_completion_tokens", absent},
			{"model", "custom-model"}, {"temperature", 0.5}, {"messages.0.role", "system"}, {"messages.0.content", "You are helpful."}, {"messages.1.content", "Hello world"}}},
	{spec: "openai-chat: should use array content for multimodal user messages", api: "openai-chat", model: "m", chat: "@You:\nWhat is this? @./pic.png\n",
		files:  map[string]string{"pic.png": "\x89PNG\r\n\x1a\n"},
		checks: []parityCheck{{"messages.0.content.0.type", "text"}, {"messages.0.content.1.type", "image_url"}, {"messages.0.content.1.image_url.url", "data:image/png;base64,iVBORw0KGgo="}}},
	{spec: "openai-chat: tool results as role=tool messages before user content; errors prefixed", api: "openai-chat", model: "m",
		chat: "@You:\nCalculate 2+2\n\n@Assistant:\nLet me check.\n\n**Tool Use:** `calculator` (`call_abc`)\n\n```json\n{\"expression\":\"2+2\"}\n```\n\n" +
			"**Tool Use:** `search` (`call_xyz`)\n\n```json\n{\"query\":\"test\"}\n```\n\n" +
			"@You:\n**Tool Result:** `call_abc`\n\n```\n4\n```\n\n**Tool Result:** `call_xyz` (error)\n\n```\nSomething went wrong\n```\nThanks\n",
		checks: []parityCheck{{"messages.1.content", "Let me check."}, {"messages.1.tool_calls.0.id", "call_abc"}, {"messages.1.tool_calls.0.type", "function"},
			{"messages.1.tool_calls.1.function.name", "search"}, {"messages.1.tool_calls.1.function.arguments", `{"query":"test"}`},
			{"messages.2.role", "tool"}, {"messages.2.tool_call_id", "call_abc"}, {"messages.2.name", "calculator"}, {"messages.2.content", "4"},
			{"messages.3.content", "Error: Something went wrong"}, {"messages.4.role", "user"}, {"messages.4.content", "Thanks"}}},
	{spec: "openai-chat: should preserve reasoning_content from thinking parts", api: "openai-chat", model: "m",
		chat:   "@You:\nHello\n\n@Assistant:\nThe answer is 42.\n\n<thinking>\nLet me reason about this.\n</thinking>\n\n@You:\nThanks\n",
		checks: []parityCheck{{"messages.1.reasoning_content", "Let me reason about this."}, {"messages.1.content", "The answer is 42."}}},
	{spec: "openai-chat: synthetic results for orphaned tool calls", api: "openai-chat", model: "m",
		chat:   "@You:\nHello\n\n@Assistant:\n**Tool Use:** `missing_tool` (`orphan_1`)\n\n```json\n{}\n```\n\n@You:\nnext\n",
		checks: []parityCheck{{"messages.2.role", "tool"}, {"messages.2.tool_call_id", "orphan_1"}, {"messages.2.name", "missing_tool"}, {"messages.2.content", "Error: No result provided"}}},
	{spec: "openai-chat: tools in Chat Completions format, tool_choice auto", api: "openai-chat", model: "m", tools: true, chat: "@You:\nHello\n",
		checks: []parityCheck{{"tools.0.type", "function"}, {"tools.0.function.name", "bash"}, {"tool_choice", "auto"}}},

	// provider_vertex_spec.lua
	{spec: "vertex: functionResponse.name is the tool's name for non-Vertex IDs", api: "vertex", model: "gemini-2.5-pro",
		chat:   "@You:\ngo\n\n@Assistant:\n**Tool Use:** `calculator_async` (`toolu_01ABC123`)\n\n```json\n{}\n```\n\n@You:\n**Tool Result:** `toolu_01ABC123`\n\n```\n4\n```\n",
		checks: []parityCheck{{"contents.2.parts.0.functionResponse.name", "calculator_async"}}},
	{spec: "vertex: should use thinkingBudget for Gemini 2.5 models", api: "vertex", model: "gemini-2.5-flash", params: map[string]any{"thinking": "high"}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingLevel", absent}, {"generationConfig.thinkingConfig.includeThoughts", true}}},
	{spec: "vertex: should use thinkingLevel HIGH for Gemini 3 Flash with thinking=high", api: "vertex", model: "gemini-3-flash-preview", params: map[string]any{"thinking": "high"}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingLevel", "HIGH"}, {"generationConfig.thinkingConfig.thinkingBudget", absent}, {"generationConfig.thinkingConfig.includeThoughts", true}}},
	{spec: "vertex: thinkingLevel LOW for Gemini 3 Flash with thinking=low", api: "vertex", model: "gemini-3-flash-preview", params: map[string]any{"thinking": "low"}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingLevel", "LOW"}}},
	{spec: "vertex: thinkingLevel MEDIUM for Gemini 3 Flash with thinking=medium", api: "vertex", model: "gemini-3-flash-preview", params: map[string]any{"thinking": "medium"}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingLevel", "MEDIUM"}}},
	{spec: "vertex: thinkingLevel MINIMAL for Gemini 3 Flash with thinking=minimal", api: "vertex", model: "gemini-3-flash-preview", params: map[string]any{"thinking": "minimal"}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingLevel", "MINIMAL"}}},
	{spec: "vertex: should clamp thinking='max' to HIGH for Gemini 3 Flash", api: "vertex", model: "gemini-3-flash-preview", params: map[string]any{"thinking": "max"}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingLevel", "HIGH"}}},
	{spec: "vertex: thinkingLevel MEDIUM for Gemini 3.1 Pro with thinking=medium", api: "vertex", model: "gemini-3.1-pro-preview", params: map[string]any{"thinking": "medium"}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingLevel", "MEDIUM"}}},
	{spec: "vertex: should map thinking='minimal' to LOW for Gemini 3.1 Pro", api: "vertex", model: "gemini-3.1-pro-preview", params: map[string]any{"thinking": "minimal"}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingLevel", "LOW"}}},
	{spec: "vertex: should use thinkingBudget for numeric thinking value on Gemini 2.5", api: "vertex", model: "gemini-2.5-pro", params: map[string]any{"thinking": 4096.0}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingBudget", 4096.0}, {"generationConfig.thinkingConfig.thinkingLevel", absent}}},
	{spec: "vertex: should still resolve numeric thinking to thinkingLevel for Gemini 3", api: "vertex", model: "gemini-3-flash-preview", params: map[string]any{"thinking": 4096.0}, chat: "@You:\nhi\n",
		checks: []parityCheck{{"generationConfig.thinkingConfig.thinkingBudget", absent}}},
}

// reasoningSignature is an OpenAI reasoning item as Flemma stores it: the
// item's JSON in base64.
var reasoningSignature = base64.StdEncoding.EncodeToString([]byte(`{"type":"reasoning","id":"rs_test_001","summary":[{"type":"summary_text","text":"summary"}],"encrypted_content":"encrypted_data_here"}`))

func TestFlemmaParity(t *testing.T) { checkParity(t, parityCases) }

// checkParity builds each case's body and holds it to the case's checks.
func checkParity(t *testing.T, cases []parityCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			body := parityBody(t, c)
			for _, ch := range c.checks {
				got, ok := jsonAt(body, ch.path)
				switch {
				case ch.want == absent && ok:
					t.Errorf("%s = %v, Flemma sends none", ch.path, got)
				case ch.want != absent && !ok:
					t.Errorf("%s missing, Flemma sends %v", ch.path, ch.want)
				case ch.want != absent:
					if diff := cmp.Diff(ch.want, got); diff != "" {
						t.Errorf("%s (-Flemma +chatls):\n%s", ch.path, diff)
					}
				}
			}
			if t.Failed() {
				b, _ := json.MarshalIndent(body, "", "  ")
				t.Logf("body:\n%s", b)
			}
		})
	}
}

// parityTools are a built-in with a strict schema (every property
// required, nullable where optional) and an MCP tool without one.
var parityTools = []ToolDef{
	{Name: "bash", Description: "Run a shell command", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":["number","null"]}},"required":["command","timeout"],"additionalProperties":false}`)},
	goldenTools[1],
}

func parityBody(t *testing.T, c parityCase) any {
	t.Helper()
	dir := t.TempDir()
	for name, content := range c.files {
		file := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := PromptOptions{DocPath: filepath.Join(dir, "c.chat")}
	if c.tools {
		opts.Tools = parityTools
	}
	p, problems := BuildPrompt(chatdoc.Parse(c.chat), opts)
	raw := bodyFor(t, c.api, c.model, p, problems, c.params)
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// jsonAt follows a dotted path through decoded JSON.
func jsonAt(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[part]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil {
				return nil, false
			}
			if i < 0 {
				i += len(x)
			}
			if i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
