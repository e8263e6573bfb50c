package provider

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/chatls/chatls/chatdoc"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// openaiOptions are the SDK options of both OpenAI APIs: explicit base
// URL and key (the SDK reads no OPENAI_* variable this way), no SDK retries.
func openaiOptions(c Conn, defaultURL string) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(cmp.Or(c.BaseURL, defaultURL)),
		option.WithMaxRetries(0),
		option.WithHTTPClient(c.httpClient()),
	}
	if c.Key != "" {
		opts = append(opts, option.WithAPIKey(c.Key))
	}
	for k, v := range c.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return opts
}

type responsesAPI struct{ svc responses.ResponseService }

func newResponses(c Conn) *responsesAPI {
	return &responsesAPI{svc: responses.NewResponseService(openaiOptions(c, "https://api.openai.com/v1/")...)}
}

func (a *responsesAPI) attempt(ctx context.Context, body []byte, emit func(Event), content *bool) error {
	stream := a.svc.NewStreaming(ctx, responses.ResponseNewParams{}, option.WithRequestBody("application/json", placeholderBody), option.WithMiddleware(asBuilt(body)))
	defer stream.Close()
	args := map[string]*strings.Builder{} // item ID → arguments so far
	calls := map[string]responseItem{}    // item ID → the call it is
	finished := false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			*content = true
			emit(Event{Kind: EventText, Text: ev.Delta})
		case "response.refusal.delta": // the model's refusal is its answer
			*content = true
			emit(Event{Kind: EventText, Text: ev.Delta})
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			*content = true
			emit(Event{Kind: EventThinkingDelta, Text: ev.Delta})
		case "response.output_item.added":
			var it responseItem
			if json.Unmarshal([]byte(ev.Item.RawJSON()), &it) == nil && it.Type == "function_call" {
				calls[it.ID] = it
				args[it.ID] = &strings.Builder{}
			}
		case "response.function_call_arguments.delta":
			*content = true
			if b := args[ev.ItemID]; b != nil {
				b.WriteString(ev.Delta)
				c := calls[ev.ItemID]
				emit(Event{Kind: EventToolInputDelta, Text: ev.Delta, Tool: &ToolCall{ID: c.CallID, Name: ToolName(c.Name)}})
			}
		case "response.output_item.done":
			raw := ev.Item.RawJSON()
			var it responseItem
			if json.Unmarshal([]byte(raw), &it) != nil {
				continue
			}
			switch it.Type {
			case "function_call":
				*content = true
				input := it.Arguments
				if input == "" && args[it.ID] != nil {
					input = args[it.ID].String()
				}
				emit(Event{Kind: EventToolUse, Tool: toolCall(it.CallID, ToolName(it.Name), input)})
			case "reasoning":
				// The whole item, encrypted content and all, is the
				// signature: sent back verbatim next turn (Flemma's form).
				sig := &chatdoc.ThinkingSignature{Provider: "openai", Value: base64.StdEncoding.EncodeToString([]byte(raw))}
				emit(Event{Kind: EventThinking, Thinking: &ThinkingBlock{Text: it.summary(), Signature: sig}})
			}
		case "response.completed", "response.incomplete":
			finished = true
			u := ev.Response.Usage
			cached := int(u.InputTokensDetails.CachedTokens)
			emit(Event{Kind: EventUsage, Usage: Usage{InputTokens: int(u.InputTokens) - cached, OutputTokens: int(u.OutputTokens), CacheReadTokens: cached}})
			reason := "end_turn"
			if ev.Type == "response.incomplete" {
				reason = ev.Response.IncompleteDetails.Reason
			}
			emit(Event{Kind: EventStop, StopReason: reason, Truncated: reason == "max_output_tokens"})
		case "response.failed":
			e := ev.Response.Error
			return &APIError{Type: string(e.Code), Message: e.Message, Retryable: e.Code == "server_error" || e.Code == "rate_limit_exceeded"}
		case "error":
			return &APIError{Type: ev.Code, Message: ev.Message, Retryable: ev.Code == "server_error" || ev.Code == "rate_limit_exceeded"}
		default:
			if !responsesUnused[ev.Type] {
				emit(Event{Kind: EventIgnored, Text: ev.Type})
			}
		}
	}
	if err := stream.Err(); err != nil {
		return openaiError(err)
	}
	if !finished {
		return &APIError{Message: ErrStreamCut.Error(), Retryable: true}
	}
	return nil
}

// responseItem is the part of an output item chatls reads.
type responseItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

func (it responseItem) summary() string {
	var parts []string
	for _, s := range it.Summary {
		parts = append(parts, s.Text)
	}
	return strings.Join(parts, "\n\n")
}

// openaiError turns the SDK's error into an APIError.
func openaiError(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		return statusError(apiErr.StatusCode, errorBody(apiErr.RawJSON(), apiErr.Response), parseRetryAfter(h))
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		e := statusError(0, se.Event.Data, 0)
		e.Retryable = strings.Contains(e.Type, "server_error") || strings.Contains(e.Type, "rate_limit")
		return e
	}
	return transportError(err)
}

// responsesUnused are events the Responses API documents that carry
// nothing chatls needs (their content also arrives in the events above).
var responsesUnused = map[string]bool{
	"response.created": true, "response.in_progress": true, "response.queued": true,
	"response.content_part.added": true, "response.content_part.done": true,
	"response.output_text.done": true, "response.output_text.annotation.added": true,
	"response.reasoning_summary_part.added": true, "response.reasoning_summary_part.done": true,
	"response.reasoning_summary_text.done": true, "response.reasoning_text.done": true,
	"response.function_call_arguments.done": true, "response.refusal.done": true,
}
