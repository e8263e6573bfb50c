package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// chatAPI streams Chat Completions through the official OpenAI SDK, for
// every OpenAI-compatible server.
type chatAPI struct{ svc openai.ChatCompletionService }

func newChat(c Conn) *chatAPI {
	return &chatAPI{svc: openai.NewChatCompletionService(openaiOptions(c, "https://api.openai.com/v1/")...)}
}

// chatCall gathers one tool call's pieces, keyed by its index.
type chatCall struct {
	id, name string
	args     strings.Builder
}

func (a *chatAPI) attempt(ctx context.Context, body []byte, emit func(Event), content *bool) error {
	stream := a.svc.NewStreaming(ctx, openai.ChatCompletionNewParams{}, option.WithRequestBody("application/json", placeholderBody), option.WithMiddleware(asBuilt(body)))
	defer stream.Close()
	calls := map[int64]*chatCall{}
	var thinking strings.Builder
	finish := ""
	for stream.Next() {
		chunk := stream.Current()
		for _, ch := range chunk.Choices {
			d := ch.Delta
			if r := reasoningContent(d.RawJSON()); r != "" {
				*content = true
				thinking.WriteString(r)
				emit(Event{Kind: EventThinkingDelta, Text: r})
			}
			if d.Content != "" {
				*content = true
				emit(Event{Kind: EventText, Text: d.Content})
			}
			for _, tc := range d.ToolCalls {
				*content = true
				c := calls[tc.Index]
				if c == nil {
					c = &chatCall{}
					calls[tc.Index] = c
				}
				if tc.ID != "" {
					c.id = tc.ID
				}
				if tc.Function.Name != "" {
					c.name += tc.Function.Name
				}
				c.args.WriteString(tc.Function.Arguments)
				if tc.Function.Arguments != "" {
					emit(Event{Kind: EventToolInputDelta, Text: tc.Function.Arguments, Tool: &ToolCall{ID: c.id, Name: ToolName(c.name)}})
				}
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
		if u := chunk.Usage; u.TotalTokens > 0 || u.PromptTokens > 0 {
			cached := int(u.PromptTokensDetails.CachedTokens)
			emit(Event{Kind: EventUsage, Usage: Usage{InputTokens: int(u.PromptTokens) - cached, OutputTokens: int(u.CompletionTokens), CacheReadTokens: cached}})
		}
	}
	if err := stream.Err(); err != nil {
		return openaiError(err)
	}
	if finish == "" {
		return &APIError{Message: ErrStreamCut.Error(), Retryable: true}
	}
	if t := thinking.String(); strings.TrimSpace(t) != "" {
		emit(Event{Kind: EventThinking, Thinking: &ThinkingBlock{Text: t}})
	}
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	for _, i := range idx {
		c := calls[i]
		emit(Event{Kind: EventToolUse, Tool: toolCall(c.id, ToolName(c.name), c.args.String())})
	}
	emit(Event{Kind: EventStop, StopReason: finish, Truncated: finish == "length"})
	return nil
}

// reasoningContent reads the delta's reasoning_content (DeepSeek, vLLM,
// llama.cpp) or reasoning (OpenRouter, Ollama), which the SDK's type lacks.
func reasoningContent(raw string) string {
	if !strings.Contains(raw, `"reasoning`) {
		return ""
	}
	var d struct {
		ReasoningContent string `json:"reasoning_content"`
		Reasoning        string `json:"reasoning"`
	}
	if json.Unmarshal([]byte(raw), &d) != nil {
		return ""
	}
	return cmp.Or(d.ReasoningContent, d.Reasoning)
}
