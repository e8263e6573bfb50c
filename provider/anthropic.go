package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/chatls/chatls/chatdoc"
)

// anthropicAPI streams Messages through the official SDK. The service is
// built from explicit options only: no ANTHROPIC_* variables are read by
// the SDK (the key comes from chatls's credentials, the base URL from
// trusted settings) and its retries are off (chatls retries, once).
type anthropicAPI struct {
	svc anthropic.MessageService
}

func newAnthropic(c Conn) *anthropicAPI {
	opts := []option.RequestOption{
		option.WithBaseURL(cmp.Or(c.BaseURL, "https://api.anthropic.com/")),
		option.WithAPIKey(c.Key),
		option.WithMaxRetries(0),
		option.WithHTTPClient(c.httpClient()),
	}
	for k, v := range c.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &anthropicAPI{svc: anthropic.NewMessageService(opts...)}
}

func (a *anthropicAPI) attempt(ctx context.Context, body []byte, emit func(Event), content *bool) error {
	stream := a.svc.NewStreaming(ctx, anthropic.MessageNewParams{}, option.WithRequestBody("application/json", placeholderBody), option.WithMiddleware(asBuilt(body)))
	defer stream.Close()
	var (
		blocks  = map[int64]*anthropicBlock{}
		usage   Usage
		stopped bool
	)
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			usage = Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens),
				CacheReadTokens: int(u.CacheReadInputTokens), CacheWriteTokens: int(u.CacheCreationInputTokens)}
			emit(Event{Kind: EventUsage, Usage: usage})
		case "content_block_start":
			cb := ev.ContentBlock
			b := &anthropicBlock{kind: cb.Type, id: cb.ID, name: cb.Name}
			b.text.WriteString(cb.Text + cb.Thinking + cb.Data)
			b.signature = cb.Signature
			blocks[ev.Index] = b
		case "content_block_delta":
			b := blocks[ev.Index]
			if b == nil {
				continue
			}
			d := ev.Delta
			switch d.Type {
			case "text_delta":
				*content = true
				b.text.WriteString(d.Text)
				emit(Event{Kind: EventText, Text: d.Text})
			case "thinking_delta":
				*content = true
				b.text.WriteString(d.Thinking)
				emit(Event{Kind: EventThinkingDelta, Text: d.Thinking})
			case "signature_delta":
				b.signature += d.Signature
			case "input_json_delta":
				*content = true
				b.text.WriteString(d.PartialJSON)
				emit(Event{Kind: EventToolInputDelta, Text: d.PartialJSON, Tool: &ToolCall{ID: b.id, Name: ToolName(b.name)}})
			}
		case "content_block_stop":
			if b := blocks[ev.Index]; b != nil {
				b.finish(emit, content)
				delete(blocks, ev.Index)
			}
		case "message_delta":
			if ev.Usage.OutputTokens > 0 {
				usage.OutputTokens = int(ev.Usage.OutputTokens)
			}
			if ev.Usage.InputTokens > 0 {
				usage.InputTokens = int(ev.Usage.InputTokens)
			}
			if ev.Usage.CacheReadInputTokens > 0 {
				usage.CacheReadTokens = int(ev.Usage.CacheReadInputTokens)
			}
			if ev.Usage.CacheCreationInputTokens > 0 {
				usage.CacheWriteTokens = int(ev.Usage.CacheCreationInputTokens)
			}
			emit(Event{Kind: EventUsage, Usage: usage})
			if r := string(ev.Delta.StopReason); r != "" {
				emit(Event{Kind: EventStop, StopReason: r, Truncated: r == "max_tokens"})
			}
		case "message_stop":
			stopped = true
		case "ping":
		default:
			emit(Event{Kind: EventIgnored, Text: ev.Type})
		}
	}
	if err := stream.Err(); err != nil {
		return anthropicError(err)
	}
	if !stopped {
		return &APIError{Message: ErrStreamCut.Error(), Retryable: true}
	}
	return nil
}

// anthropicBlock gathers one content block until it stops.
type anthropicBlock struct {
	kind, id, name string
	text           strings.Builder
	signature      string
}

func (b *anthropicBlock) finish(emit func(Event), content *bool) {
	switch b.kind {
	case "thinking":
		th := &ThinkingBlock{Text: b.text.String()}
		if b.signature != "" {
			th.Signature = &chatdoc.ThinkingSignature{Provider: "anthropic", Value: b.signature}
		}
		emit(Event{Kind: EventThinking, Thinking: th})
	case "redacted_thinking":
		*content = true
		emit(Event{Kind: EventThinking, Thinking: &ThinkingBlock{Text: b.text.String(), Redacted: true}})
	case "tool_use":
		*content = true
		emit(Event{Kind: EventToolUse, Tool: toolCall(b.id, ToolName(b.name), b.text.String())})
	}
}

// anthropicError turns the SDK's error into an APIError with the
// provider's type and message.
func anthropicError(err error) error {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		e := statusError(apiErr.StatusCode, errorBody(apiErr.RawJSON(), apiErr.Response), parseRetryAfter(h))
		if apiErr.StatusCode < 400 { // an error event mid-stream
			e.Status = 0
			e.Retryable = e.Type == "overloaded_error" || e.Type == "rate_limit_error" || e.Type == "api_error"
		}
		return e
	}
	return transportError(err)
}

// toolCall checks a finished call's input: a JSON object, else flagged.
func toolCall(id, name, input string) *ToolCall {
	if input == "" {
		input = "{}"
	}
	tc := &ToolCall{ID: id, Name: name, Input: input}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(input), &obj); err != nil || obj == nil {
		// Kept as the model sent it, flagged.
		tc.InputError = "the model sent tool input that is not a JSON object"
		return tc
	}
	// One compact line, as the document keeps tool inputs (SPEC §1).
	tc.Input = string(compactJSON(input))
	return tc
}
