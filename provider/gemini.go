package provider

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"google.golang.org/genai"
)

// geminiAPI streams generateContent through Google's official genai SDK.
// The SDK builds its own body from typed values; chatls replaces it with
// the body built here (ExtrasRequestProvider, the SDK's hook for exactly
// this), so both APIs get the same mapping the golden tests hold.
type geminiAPI struct {
	client *genai.Client
	model  string
	body   map[string]any
}

func newGemini(ctx context.Context, api, model string, c Conn) (*geminiAPI, error) {
	cfg := &genai.ClientConfig{HTTPClient: c.httpClient(), HTTPOptions: genai.HTTPOptions{Headers: http.Header{}}}
	for k, v := range c.Headers {
		cfg.HTTPOptions.Headers.Set(k, v)
	}
	if api == "vertex" {
		cfg.Backend = genai.BackendVertexAI
		cfg.Project, cfg.Location = c.Project, cmp.Or(c.Location, "global")
		cfg.HTTPOptions.BaseURL = c.BaseURL
		if cfg.Project == "" {
			return nil, &APIError{Type: "configuration", Message: "Vertex AI needs a project: set parameters.vertex.project_id (or GOOGLE_CLOUD_PROJECT)"}
		}
		if c.Key != "" { // an access token given by apiKeyCommand/apiKeyEnv
			cfg.HTTPOptions.Headers.Set("Authorization", "Bearer "+c.Key)
		}
	} else {
		cfg.Backend = genai.BackendGeminiAPI
		cfg.APIKey = c.Key
		cfg.HTTPOptions.BaseURL = cmp.Or(c.BaseURL, "https://generativelanguage.googleapis.com/")
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return nil, &APIError{Type: "configuration", Message: err.Error()}
	}
	return &geminiAPI{client: client, model: model}, nil
}

func (a *geminiAPI) attempt(ctx context.Context, body []byte, emit func(Event), content *bool) error {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	cfg := &genai.GenerateContentConfig{
		AutomaticContinuation: genai.Ptr(false),
		HTTPOptions: &genai.HTTPOptions{ExtrasRequestProvider: func(map[string]any) map[string]any {
			return m
		}},
	}
	placeholder := []*genai.Content{genai.NewContentFromText(".", genai.RoleUser)} // replaced by the body above
	var usage Usage
	finish := ""
	sig := ""
	var thoughts []byte
	for resp, err := range a.client.Models.GenerateContentStream(ctx, a.model, placeholder, cfg) {
		if err != nil {
			return geminiError(err)
		}
		if u := resp.UsageMetadata; u != nil {
			cached := int(u.CachedContentTokenCount)
			usage = Usage{InputTokens: int(u.PromptTokenCount) - cached, OutputTokens: int(u.CandidatesTokenCount),
				CacheReadTokens: cached, ThoughtTokens: int(u.ThoughtsTokenCount)}
			emit(Event{Kind: EventUsage, Usage: usage})
		}
		if len(resp.Candidates) == 0 {
			continue
		}
		cand := resp.Candidates[0]
		if cand.Content != nil {
			for _, part := range cand.Content.Parts {
				if len(part.ThoughtSignature) > 0 {
					sig = base64.StdEncoding.EncodeToString(part.ThoughtSignature)
				}
				switch {
				case part.Thought && part.Text != "":
					*content = true
					thoughts = append(thoughts, part.Text...)
					emit(Event{Kind: EventThinkingDelta, Text: part.Text})
				case part.FunctionCall != nil:
					*content = true
					args, _ := json.Marshal(part.FunctionCall.Args)
					if part.FunctionCall.Args == nil {
						args = []byte("{}")
					}
					name := ToolName(part.FunctionCall.Name)
					emit(Event{Kind: EventToolUse, Tool: toolCall(mintToolID(part.FunctionCall.Name), name, string(args))})
				case part.Text != "":
					*content = true
					emit(Event{Kind: EventText, Text: part.Text})
				}
			}
		}
		if cand.FinishReason != "" {
			finish = string(cand.FinishReason)
		}
	}
	if finish == "" {
		return &APIError{Message: ErrStreamCut.Error(), Retryable: true}
	}
	if len(thoughts) > 0 || sig != "" {
		th := &ThinkingBlock{Text: string(thoughts)}
		if sig != "" {
			th.Signature = &chatdoc.ThinkingSignature{Provider: "vertex", Value: sig}
		}
		emit(Event{Kind: EventThinking, Thinking: th})
	}
	emit(Event{Kind: EventStop, StopReason: finish, Truncated: finish == string(genai.FinishReasonMaxTokens)})
	return nil
}

// mintToolID gives a Gemini call the ID the API does not (Flemma's form,
// so the name can be read back from it).
func mintToolID(name string) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("urn:flemma:tool:%s:%s%s", name, strconv.FormatInt(time.Now().Unix(), 16), hex.EncodeToString(b[:]))
}

// geminiError turns genai's error (a value type) into an APIError. genai
// does not expose the response headers, so there is no retry-after here.
func geminiError(err error) error {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		e := &APIError{Status: apiErr.Code, Type: apiErr.Status, Message: apiErr.Message}
		e.Retryable = e.Status == 429 || e.Status >= 500
		return e
	}
	return transportError(err)
}
