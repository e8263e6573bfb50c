package provider

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"path"
	"strings"
)

// The Anthropic Messages request, field for field as Flemma 0.11 builds it.
// Keys are in Flemma's order: static ones alphabetically, then system,
// tools and messages (they grow; a stable prefix helps caching).
type anthropicBody struct {
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
	MaxTokens    int             `json:"max_tokens"`
	Model        string          `json:"model"`
	OutputConfig *effortConfig   `json:"output_config,omitempty"`
	Stream       bool            `json:"stream"`
	Temperature  *float64        `json:"temperature,omitempty"`
	Thinking     any             `json:"thinking,omitempty"`
	ToolChoice   *typeOnly       `json:"tool_choice,omitempty"`
	System       any             `json:"system,omitempty"` // a string, or one text block with a cache breakpoint
	Tools        []anthropicTool `json:"tools,omitempty"`
	Messages     []anthropicMsg  `json:"messages"` // last: encodeBody writes it after the rest
}

type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

type effortConfig struct {
	Effort string `json:"effort"`
}

type typeOnly struct {
	Type string `json:"type"`
}

type anthropicTool struct {
	Name                string          `json:"name"`
	Description         string          `json:"description"`
	InputSchema         json.RawMessage `json:"input_schema"`
	EagerInputStreaming bool            `json:"eager_input_streaming"`
	CacheControl        *cacheControl   `json:"cache_control,omitempty"`
}

type anthropicMsg struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type anthropicText struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type anthropicMedia struct {
	Type   string      `json:"type"` // image | document
	Source base64Media `json:"source"`
	Title  string      `json:"title,omitempty"`
}

type base64Media struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anthropicToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anthropicToolResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

type anthropicThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type anthropicRedacted struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type budgetThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type adaptiveThinking struct {
	Type    string `json:"type"`
	Display string `json:"display"`
}

func anthropicRequest(p *Prompt, model string, pr params, info *ModelInfo) *anthropicBody {
	body := &anthropicBody{Model: model, MaxTokens: pr.MaxTokens, Stream: true, Messages: []anthropicMsg{}}
	var cc *cacheControl
	switch pr.CacheRetention {
	case "short":
		cc = &cacheControl{Type: "ephemeral"}
	case "long":
		cc = &cacheControl{Type: "ephemeral", TTL: "1h"}
	}
	for _, m := range p.Messages {
		var content []any
		if m.Role == "user" {
			content = anthropicUser(m)
		} else {
			content = anthropicAssistant(m, pr.Foreign)
		}
		if len(content) > 0 {
			body.Messages = append(body.Messages, anthropicMsg{Role: m.Role, Content: content})
		}
	}
	for _, t := range p.Tools {
		body.Tools = append(body.Tools, anthropicTool{Name: WireName(t.Name), Description: t.Description,
			InputSchema: t.Schema, EagerInputStreaming: true})
	}
	if cc != nil && len(body.Tools) > 0 {
		body.Tools[len(body.Tools)-1].CacheControl = cc
	}
	body.CacheControl = cc
	if p.System != "" {
		if cc != nil {
			body.System = []anthropicText{{Type: "text", Text: p.System, CacheControl: cc}}
		} else {
			body.System = p.System
		}
	}
	if len(body.Tools) > 0 {
		body.ToolChoice = &typeOnly{Type: "auto"}
	}
	anthropicThinkingConfig(body, pr, info)
	if body.Thinking == nil {
		body.Temperature = pr.Temperature // with thinking on, Anthropic takes no temperature
	}
	return body
}

func anthropicThinkingConfig(body *anthropicBody, pr params, info *ModelInfo) {
	th := pr.Thinking
	adaptive := info != nil && info.AdaptiveThinking
	if e := pr.str("effort"); e != "" && adaptive {
		th = thinking{Enabled: true, Effort: e}
	}
	switch {
	case !th.Enabled:
	case adaptive:
		body.Thinking = adaptiveThinking{Type: "adaptive", Display: "summarized"}
		body.OutputConfig = &effortConfig{Effort: cmp.Or(th.Effort, "high")}
	case th.Budget > 0 && th.Effort != "":
		body.Thinking = budgetThinking{Type: "enabled", BudgetTokens: th.Budget}
		body.OutputConfig = &effortConfig{Effort: th.Effort}
	case th.Budget > 0:
		budget := th.Budget
		if budget >= body.MaxTokens {
			budget = max(body.MaxTokens-1, 1024)
		}
		body.Thinking = budgetThinking{Type: "enabled", BudgetTokens: budget}
	}
}

// anthropicUser puts tool results first (the API requires it), then text
// and attachments.
func anthropicUser(m Message) []any {
	var out []any
	for _, p := range m.Parts {
		if p.Kind == PartToolResult {
			out = append(out, anthropicToolResult{Type: "tool_result", ToolUseID: WireID(p.ID), Content: p.Text, IsError: p.IsError})
		}
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case PartText:
			if strings.TrimSpace(p.Text) != "" {
				out = append(out, anthropicText{Type: "text", Text: p.Text})
			}
		case PartFile:
			out = append(out, anthropicFile(p.File))
		}
	}
	return out
}

func anthropicFile(f *Attachment) any {
	switch {
	case f.IsText():
		return anthropicText{Type: "text", Text: string(f.Data)}
	case f.MIME == "application/pdf":
		return anthropicMedia{Type: "document", Source: base64Media{"base64", f.MIME, base64.StdEncoding.EncodeToString(f.Data)}, Title: path.Base(f.Path)}
	}
	return anthropicMedia{Type: "image", Source: base64Media{"base64", f.MIME, base64.StdEncoding.EncodeToString(f.Data)}}
}

// anthropicAssistant: redacted and own signed thinking first, foreign
// thinking as one text block, then the trimmed texts, then the tool uses
// (the API's order).
func anthropicAssistant(m Message, foreign string) []any {
	var out []any
	for _, p := range m.Parts {
		switch {
		case p.Kind != PartThinking:
		case p.Redacted:
			out = append(out, anthropicRedacted{Type: "redacted_thinking", Data: p.Text})
		case isNative(p, "anthropic"):
			out = append(out, anthropicThinking{Type: "thinking", Thinking: p.Text, Signature: p.Signature.Value})
		}
	}
	if f := foreignThinking(m, "anthropic", foreign); f != "" {
		out = append(out, anthropicText{Type: "text", Text: f})
	}
	for _, p := range m.Parts {
		if p.Kind == PartText {
			if t := strings.TrimSpace(p.Text); t != "" {
				out = append(out, anthropicText{Type: "text", Text: t})
			}
		}
	}
	for _, p := range m.Parts {
		if p.Kind == PartToolUse {
			out = append(out, anthropicToolUse{Type: "tool_use", ID: WireID(p.ID), Name: WireName(p.Name), Input: p.Input})
		}
	}
	return out
}

// isNative: thinking signed by this API family goes back signed.
func isNative(p Part, family string) bool {
	return p.Signature != nil && p.Signature.Provider == family
}

// foreignThinking wraps other providers' (and unsigned) thinking into one
// <thinking> text, unless the foreign setting drops it.
func foreignThinking(m Message, family, foreign string) string {
	return foreignText(m, func(p Part) bool { return isNative(p, family) }, foreign)
}

// foreignText is Flemma's wrap_foreign_thinking (base.lua): every thinking
// block that is not the API's own (own), not redacted and not blank,
// trimmed, in one "<thinking>\n…\n</thinking>" text; "" when there is
// none or the foreign setting drops them.
func foreignText(m Message, own func(Part) bool, foreign string) string {
	if foreign == "drop" {
		return ""
	}
	var texts []string
	for _, p := range m.Parts {
		if p.Kind == PartThinking && !p.Redacted && !own(p) {
			if t := strings.TrimSpace(p.Text); t != "" {
				texts = append(texts, t)
			}
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return "<thinking>\n" + strings.Join(texts, "\n\n") + "\n</thinking>"
}
