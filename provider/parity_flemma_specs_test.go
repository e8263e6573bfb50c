package provider

import "testing"

// Flemma's own 0.12–0.14 spec assertions on what is sent, restated: each
// case or row names the spec file and its test. The documents are the
// specs' buffers as .chat text (after the drain the spec runs, where it
// runs one: the Job Result block in the buffer).

// tests/flemma/background_drain_spec.lua: a job result is sent to the
// model as a user text block "[Job result for NAME (ID)]" after the
// message's tool_result; ast_background_spec.lua "pipeline enrichment"
// names the call, or "unknown tool (job: JOB)" when no result names the
// job.
var parityJobCases = []parityCase{
	{spec: "background_drain_spec: drains queued job completions on a non-user-initiated send (autopilot)", api: "anthropic", model: "claude-sonnet-4-5",
		chat: "@You:\nCheck disk space in the background.\n\n@Assistant:\n\n**Tool Use:** `bash` (`tool_01`)\n```json\n{\"command\":\"df -h\"}\n```\n\n" +
			"@You:\n\n**Tool Result:** `tool_01` (job=job_send1)\n```\nRunning as a background job `job_send1`.\n```\n\n" +
			"@Assistant:\nThe job is running; results will be delivered automatically.\n\n" +
			"@You:\n\n**Job Result:** `job_send1`\n```\nFilesystem use 41%\n```\n",
		checks: []parityCheck{{"messages.-1.role", "user"}, {"messages.-1.content.0.type", "text"},
			{"messages.-1.content.0.text", "[Job result for bash (tool_01)]\nFilesystem use 41%"}}},
	{spec: "background_drain_spec: delivers the job result alongside a foreground tool result in the same @You", api: "anthropic", model: "claude-sonnet-4-5",
		chat: "@You:\nCheck disk space in the background.\n\n@Assistant:\n\n**Tool Use:** `bash` (`tool_01`)\n```json\n{\"command\":\"df -h\"}\n```\n\n" +
			"@You:\n\n**Tool Result:** `tool_01` (job=job_mix1)\n```\nRunning as a background job `job_mix1`.\n```\n\n" +
			"@Assistant:\n\n**Tool Use:** `flemma.jobs.status` (`tool_02`)\n```json\n{\"job_id\":\"job_mix1\"}\n```\n\n" +
			"@You:\n\n**Tool Result:** `tool_02`\n```\n{\"status\":\"running\",\"job_id\":\"job_mix1\"}\n```\n\n**Job Result:** `job_mix1`\n```\nFilesystem use 41%\n```\n",
		checks: []parityCheck{{"messages.-1.role", "user"}, {"messages.-1.content.0.type", "tool_result"}, {"messages.-1.content.0.tool_use_id", "tool_02"},
			{"messages.-1.content.1.type", "text"}, {"messages.-1.content.1.text", "[Job result for bash (tool_01)]\nFilesystem use 41%"},
			{"messages.-2.content.0.name", "flemma__jobs__status"}}},
	{spec: "background_drain_spec: still drains queued job completions on user-initiated sends (Chat Completions: the text is the user message)", api: "openai-chat", model: "m",
		chat: "@You:\nCheck disk space in the background.\n\n@Assistant:\n\n**Tool Use:** `bash` (`tool_01`)\n```json\n{\"command\":\"df -h\"}\n```\n\n" +
			"@You:\n\n**Tool Result:** `tool_01` (job=job_user1)\n```\nRunning as a background job `job_user1`.\n```\n\n" +
			"@Assistant:\nThe job is running; results will be delivered automatically.\n\n" +
			"@You:\n\n**Job Result:** `job_user1`\n```\nFilesystem use 41%\n```\n",
		checks: []parityCheck{{"messages.-1.role", "user"}, {"messages.-1.content", "[Job result for bash (tool_01)]\nFilesystem use 41%"}}},
	{spec: "ast_background_spec: prefixes job result text with the originating tool context", api: "anthropic", model: "claude-sonnet-4-5",
		chat: "@Assistant:\n**Tool Use:** `bash` (`tool_01`)\n\n```json\n{\"command\": \"make qa\"}\n```\n\n" +
			"@You:\n**Tool Result:** `tool_01` (job=job_k7x2m)\n\n```\nRunning in background.\n```\n\n" +
			"@You:\n**Job Result:** `job_k7x2m`\n\n```\nqa: OK\n```\n",
		checks: []parityCheck{{"messages.-1.content.0.text", "[Job result for bash (tool_01)]\nqa: OK"}}},
	{spec: "ast_background_spec: prefixes unresolved job result text with job context", api: "anthropic", model: "claude-sonnet-4-5",
		chat:   "@You:\n**Job Result:** `job_lost1`\n\n```\nlate output\n```\n",
		checks: []parityCheck{{"messages.0.content.0.text", "[Job result for unknown tool (job: job_lost1)]\nlate output"}}},
	{spec: "ast_background_spec: an error job result is sent as the same text (the orphan recovery block)", api: "anthropic", model: "claude-sonnet-4-5",
		chat:   "@You:\n**Job Result:** `job_lost1` (error)\n\n```\nJob lost: session ended before completion.\n```\n",
		checks: []parityCheck{{"messages.0.content.0.text", "[Job result for unknown tool (job: job_lost1)]\nJob lost: session ended before completion."}}},
}

func TestFlemmaJobSpecParity(t *testing.T) { checkParity(t, parityJobCases) }

// The utilities spec, describe("utilities.tools") (formerly
// tests/flemma/tool_names_spec.lua; 0.12 moved the separator from ":" to
// "."): encode_tool_name / decode_tool_name and their round trips. chatls
// also encodes the 0.11 ":" (SPEC §1: still read).
func TestFlemmaToolNameSpec(t *testing.T) {
	for _, c := range []struct{ spec, name, wire string }{
		{"encode: replaces dot with wire separator", "slack.channels_list", "slack__channels_list"},
		{"encode: handles multiple dots", "server.group.tool", "server__group__tool"},
		{"encode: passes through names without dots", "bash", "bash"},
		{"encode: passes through empty string", "", ""},
	} {
		if got := WireName(c.name); got != c.wire {
			t.Errorf("%s: WireName(%q) = %q, want %q", c.spec, c.name, got, c.wire)
		}
	}
	for _, c := range []struct{ spec, wire, name string }{
		{"decode: replaces wire separator with dot", "slack__channels_list", "slack.channels_list"},
		{"decode: handles multiple wire separators", "server__group__tool", "server.group.tool"},
		{"decode: passes through names without wire separator", "bash", "bash"},
		{"decode: passes through empty string", "", ""},
	} {
		if got := ToolName(c.wire); got != c.name {
			t.Errorf("%s: ToolName(%q) = %q, want %q", c.spec, c.wire, got, c.name)
		}
	}
	if got := ToolName(WireName("slack.channels_list")); got != "slack.channels_list" {
		t.Errorf("round-trip: encode then decode returns original: %q", got)
	}
	if got := WireName(ToolName("slack__channels_list")); got != "slack__channels_list" {
		t.Errorf("round-trip: decode then encode returns original: %q", got)
	}
	// The 0.11 form (the older tool_names_spec: "replaces colon with wire
	// separator", "handles multiple colons") is still encoded; it decodes
	// to the 0.12 name.
	if got := WireName("server:group:tool"); got != "server__group__tool" {
		t.Errorf("0.11 colons: %q", got)
	}
}

// Unterminated thinking (0.14: it runs to the end of its message and stays
// thinking) is thinking like any other: unsigned, so to Anthropic it is
// another provider's thinking, sent as <thinking> text
// (tests/flemma/foreign_thinking_spec.lua "returns true for unsigned
// thinking with content", "wraps single foreign segment in thinking
// tags"), and to Chat Completions the model's own reasoning_content
// (openai_chat "treats unsigned thinking as native").
var parityUnterminatedThinking = []parityCase{
	{spec: "anthropic: an unterminated <thinking> is sent as <thinking> text", api: "anthropic", model: "claude-sonnet-4-5",
		chat:   "@You:\nWhy?\n\n@Assistant:\n<thinking>\nThe failure is in parse.go.\n\n@You:\nGo on.\n",
		checks: []parityCheck{{"messages.1.role", "assistant"}, {"messages.1.content.0.text", "<thinking>\nThe failure is in parse.go.\n</thinking>"}, {"messages.2.content.0.text", "Go on."}}},
	{spec: "anthropic: thinking.foreign=drop leaves an unterminated <thinking> out with its message", api: "anthropic", model: "claude-sonnet-4-5",
		params: map[string]any{"thinking": map[string]any{"level": "high", "foreign": "drop"}},
		chat:   "@You:\nWhy?\n\n@Assistant:\nLet me see.\n<thinking>\nThe failure is in parse.go.\n\n@You:\nGo on.\n",
		checks: []parityCheck{{"messages.1.content.0.text", "Let me see."}, {"messages.1.content.1", absent}}},
	{spec: "openai-chat: an unterminated <thinking> is the model's own reasoning_content", api: "openai-chat", model: "m",
		chat:   "@You:\nWhy?\n\n@Assistant:\nLet me see.\n<thinking>\nThe failure is in parse.go.\n\n@You:\nGo on.\n",
		checks: []parityCheck{{"messages.1.reasoning_content", "The failure is in parse.go."}, {"messages.1.content", "Let me see."}}},
}

func TestFlemmaUnterminatedThinkingParity(t *testing.T) { checkParity(t, parityUnterminatedThinking) }
