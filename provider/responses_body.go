package provider

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// The OpenAI Responses request as Flemma 0.11 builds it: static keys
// alphabetically, then tools and input.
type responsesBody struct {
	Include              []string        `json:"include,omitempty"`
	MaxOutputTokens      int             `json:"max_output_tokens"`
	Model                string          `json:"model"`
	PromptCacheKey       string          `json:"prompt_cache_key,omitempty"`
	PromptCacheRetention string          `json:"prompt_cache_retention,omitempty"`
	Reasoning            *reasoningParam `json:"reasoning,omitempty"`
	Store                bool            `json:"store"`
	Stream               bool            `json:"stream"`
	Temperature          *float64        `json:"temperature,omitempty"`
	ToolChoice           string          `json:"tool_choice,omitempty"`
	Tools                []responsesTool `json:"tools,omitempty"`
	Input                []any           `json:"input"` // last: encodeBody writes it after the rest
}

type reasoningParam struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary,omitempty"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

type roleContent struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type inputText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type inputImage struct {
	Type     string `json:"type"`
	ImageURL string `json:"image_url"`
	Detail   string `json:"detail"`
}

type inputFile struct {
	Type     string `json:"type"`
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
}

type functionCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type functionCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Status    string `json:"status"`
}

type outputMessage struct {
	Type    string       `json:"type"`
	Role    string       `json:"role"`
	ID      string       `json:"id"`
	Content []outputText `json:"content"`
	Status  string       `json:"status"`
	Phase   string       `json:"phase,omitempty"`
}

type outputText struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

func responsesRequest(p *Prompt, model string, pr params, info *ModelInfo) *responsesBody {
	body := &responsesBody{Model: model, MaxOutputTokens: pr.MaxTokens, Stream: true, Input: []any{}}
	if p.System != "" {
		body.Input = append(body.Input, roleContent{Role: "developer", Content: p.System})
	}
	assistantN := 0
	for _, m := range p.Messages {
		if m.Role == "user" {
			body.Input = append(body.Input, responsesUser(m)...)
			continue
		}
		assistantN++
		body.Input = append(body.Input, responsesAssistant(m, assistantN, pr.Foreign)...)
	}
	for _, t := range p.Tools {
		body.Tools = append(body.Tools, responsesTool{Type: "function", Name: WireName(t.Name), Description: t.Description, Parameters: t.Schema, Strict: t.Strict})
	}
	if len(body.Tools) > 0 {
		body.ToolChoice = "auto"
	}
	reasoning := info != nil && info.ReasoningEffort
	switch th := pr.Thinking; {
	case reasoning && th.Enabled && th.Effort != "":
		body.Reasoning = &reasoningParam{Effort: th.Effort, Summary: cmp.Or(pr.str("reasoning_summary"), "auto")}
		body.Include = []string{"reasoning.encrypted_content"}
	case reasoning && th.Explicit:
		body.Reasoning = &reasoningParam{Effort: "none"}
		body.Temperature = pr.Temperature
	default:
		body.Temperature = pr.Temperature
	}
	if pr.CacheRetention != "none" {
		body.PromptCacheKey = p.CacheKey // a hash of the path, never the path (SPEC §7)
		body.PromptCacheRetention = "in_memory"
		if pr.CacheRetention == "long" {
			body.PromptCacheRetention = "24h"
		}
	}
	return body
}

// responsesUser: function outputs first, then one user item.
func responsesUser(m Message) []any {
	var items, content []any
	for _, p := range m.Parts {
		switch p.Kind {
		case PartToolResult:
			out := p.Text
			if p.IsError {
				out = "Error: " + cmp.Or(out, "Tool execution failed")
			}
			items = append(items, functionCallOutput{Type: "function_call_output", CallID: WireID(p.ID), Output: out})
		case PartText:
			if strings.TrimSpace(p.Text) != "" {
				content = append(content, inputText{Type: "input_text", Text: p.Text})
			}
		case PartFile:
			content = append(content, responsesFile(p.File))
		}
	}
	if len(content) > 0 {
		items = append(items, roleContent{Role: "user", Content: content})
	}
	return items
}

func responsesFile(f *Attachment) any {
	switch {
	case f.IsText():
		return inputText{Type: "input_text", Text: string(f.Data)}
	case f.MIME == "application/pdf":
		// The path as the document writes it: Flemma sends the reference's
		// path (resolved against the document's directory); chatls keeps it
		// relative, so no local absolute path leaves the machine.
		return inputFile{Type: "input_file", Filename: cmp.Or(f.Path, "document.pdf"), FileData: dataURL(f)}
	}
	return inputImage{Type: "input_image", ImageURL: dataURL(f), Detail: "auto"}
}

func dataURL(f *Attachment) string {
	return "data:" + f.MIME + ";base64," + base64.StdEncoding.EncodeToString(f.Data)
}

// responsesAssistant: own reasoning items back verbatim (decoded from the
// signature), then text and calls in order; text before a call is one
// message item, labelled "commentary" when the turn calls tools, else
// "final_answer" (Flemma's phase labels).
func responsesAssistant(m Message, n int, foreign string) []any {
	var items []any
	hasTools := false
	for _, p := range m.Parts {
		hasTools = hasTools || p.Kind == PartToolUse
		if p.Kind == PartThinking && isNative(p, "openai") {
			if raw, err := base64.StdEncoding.DecodeString(p.Signature.Value); err == nil && json.Valid(raw) && strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
				items = append(items, json.RawMessage(raw))
			}
		}
	}
	phase := "final_answer"
	if hasTools {
		phase = "commentary"
	}
	var texts []string
	if f := foreignThinking(m, "openai", foreign); f != "" {
		texts = append(texts, f)
	}
	k := 0
	flush := func() {
		text := strings.TrimSpace(strings.Join(texts, ""))
		texts = nil
		if text == "" {
			return
		}
		k++
		items = append(items, outputMessage{Type: "message", Role: "assistant", ID: "msg_" + strconv.Itoa(n) + "_" + strconv.Itoa(k),
			Content: []outputText{{Type: "output_text", Text: text, Annotations: []any{}}}, Status: "completed", Phase: phase})
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case PartText:
			texts = append(texts, p.Text)
		case PartToolUse:
			flush()
			items = append(items, functionCall{Type: "function_call", CallID: WireID(p.ID), Name: WireName(p.Name), Arguments: string(p.Input), Status: "completed"})
		}
	}
	flush()
	return items
}
