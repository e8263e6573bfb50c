package provider

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
)

// The Chat Completions request (Ollama, OpenRouter, llama.cpp, vLLM…) as
// Flemma's openai_chat builds it (0.11 to 0.14). IDs go out unchanged:
// these servers take any string, and some check them against their own.
type chatBody struct {
	MaxTokens     int            `json:"max_tokens"`
	Model         string         `json:"model"`
	Stream        bool           `json:"stream"`
	StreamOptions map[string]any `json:"stream_options"`
	Temperature   *float64       `json:"temperature,omitempty"`
	ToolChoice    string         `json:"tool_choice,omitempty"`
	Tools         []chatTool     `json:"tools,omitempty"`
	Messages      []any          `json:"messages"` // last: encodeBody writes it after the rest
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type chatToolMsg struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Content    string `json:"content"`
}

type chatAssistantMsg struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
}

type chatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function chatCallFunction `json:"function"`
}

type chatCallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatImage struct {
	Type     string            `json:"type"`
	ImageURL map[string]string `json:"image_url"`
}

func chatRequest(p *Prompt, model, entry string, pr params) *chatBody {
	body := &chatBody{Model: model, MaxTokens: pr.MaxTokens, Stream: true,
		StreamOptions: map[string]any{"include_usage": true}, Temperature: pr.Temperature, Messages: []any{}}
	if p.System != "" {
		body.Messages = append(body.Messages, roleContent{Role: "system", Content: p.System})
	}
	for _, m := range p.Messages {
		if m.Role == "user" {
			body.Messages = append(body.Messages, chatUser(m)...)
		} else if msg, ok := chatAssistant(m, entry, pr.Foreign); ok {
			body.Messages = append(body.Messages, msg)
		}
	}
	for _, t := range p.Tools {
		body.Tools = append(body.Tools, chatTool{Type: "function", Function: chatFunction{Name: WireName(t.Name), Description: t.Description, Parameters: t.Schema}})
	}
	if len(body.Tools) > 0 {
		body.ToolChoice = "auto"
	}
	return body
}

// chatUser: one "tool" message per result, then the user's text — a plain
// string, or a content array when it holds an image. A PDF is left out, as
// Flemma's openai_chat leaves it (its user parts know text, images and
// text files only); Send says so (EventNotice).
func chatUser(m Message) []any {
	var out []any
	var texts []string
	var parts []any
	multimodal := false
	for _, p := range m.Parts {
		switch p.Kind {
		case PartToolResult:
			content := p.Text
			if p.IsError {
				content = "Error: " + cmp.Or(content, "Tool execution failed")
			}
			out = append(out, chatToolMsg{Role: "tool", ToolCallID: p.ID, Name: WireName(p.Name), Content: content})
		case PartText:
			if strings.TrimSpace(p.Text) != "" {
				texts = append(texts, p.Text)
				parts = append(parts, inputTextPart(p.Text))
			}
		case PartFile:
			if p.File.IsText() {
				texts = append(texts, string(p.File.Data))
				parts = append(parts, inputTextPart(string(p.File.Data)))
				continue
			}
			if chatDrops(p.File) {
				continue
			}
			multimodal = true
			parts = append(parts, chatImage{Type: "image_url", ImageURL: map[string]string{"url": dataURL(p.File)}})
		}
	}
	switch {
	case multimodal:
		out = append(out, roleContent{Role: "user", Content: parts})
	case len(texts) > 0:
		out = append(out, roleContent{Role: "user", Content: strings.Join(texts, "")})
	}
	return out
}

func inputTextPart(t string) inputText { return inputText{Type: "text", Text: t} }

// chatAssistant: text, tool calls, and the reasoning as reasoning_content
// (what DeepSeek, vLLM and llama.cpp read back). Flemma's rule
// (openai_chat.lua is_native_thinking): a Chat Completions server signs
// nothing, so unsigned thinking, and thinking signed with the entry's own
// name, is the model's own — the last such block with text is its
// reasoning_content; thinking signed by another provider goes before the
// text as one <thinking> text (thinking.foreign), joined to it without a
// separator as Flemma joins the text parts.
func chatAssistant(m Message, entry, foreign string) (chatAssistantMsg, bool) {
	msg := chatAssistantMsg{Role: "assistant"}
	own := func(p Part) bool { return p.Signature == nil || p.Signature.Provider == entry }
	var texts []string
	if f := foreignText(m, own, foreign); f != "" {
		texts = append(texts, f)
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case PartText:
			// Each text run trimmed and joined without a separator, as Flemma
			// sends it.
			if t := strings.TrimSpace(p.Text); t != "" {
				texts = append(texts, t)
			}
		case PartToolUse:
			msg.ToolCalls = append(msg.ToolCalls, chatToolCall{ID: p.ID, Type: "function", Function: chatCallFunction{Name: WireName(p.Name), Arguments: string(p.Input)}})
		case PartThinking:
			// Flemma checks no redacted flag here: an unsigned
			// <thinking redacted> block is the model's own too.
			if own(p) && strings.TrimSpace(p.Text) != "" {
				msg.ReasoningContent = p.Text
			}
		}
	}
	if len(texts) > 0 {
		t := strings.Join(texts, "")
		msg.Content = &t
	}
	return msg, msg.Content != nil || len(msg.ToolCalls) > 0
}

// chatDrops: Chat Completions gets no PDF (Flemma's openai_chat sends
// none).
func chatDrops(f *Attachment) bool { return f.MIME == "application/pdf" }

// chatNotices say what a Chat Completions request leaves out of the
// document: its PDFs.
func chatNotices(p *Prompt, entry string) []string {
	var out []string
	for _, m := range p.Messages {
		for _, part := range m.Parts {
			if part.Kind == PartFile && chatDrops(part.File) {
				out = append(out, fmt.Sprintf("%s is not sent: Chat Completions (%s) takes no PDF, as in Flemma; choose anthropic, openai, gemini or vertex to send it", part.File.Path, entry))
			}
		}
	}
	return out
}
