package provider

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"path"
	"strings"
)

// The Gemini generateContent request (Gemini API and Vertex AI) as Flemma
// 0.11's vertex adapter builds it: static keys first, tools and contents last.
type geminiBody struct {
	GenerationConfig  geminiGenConfig  `json:"generationConfig"`
	SystemInstruction *geminiContent   `json:"systemInstruction,omitempty"`
	ToolConfig        *geminiToolCfg   `json:"toolConfig,omitempty"`
	Tools             []geminiToolDecl `json:"tools,omitempty"`
	Contents          []geminiContent  `json:"contents"` // last: encodeBody writes it after the rest
}

type geminiGenConfig struct {
	MaxOutputTokens int                `json:"maxOutputTokens"`
	Temperature     *float64           `json:"temperature,omitempty"`
	ThinkingConfig  *geminiThinkingCfg `json:"thinkingConfig,omitempty"`
}

type geminiThinkingCfg struct {
	IncludeThoughts bool   `json:"includeThoughts"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
	ThinkingBudget  int    `json:"thinkingBudget,omitempty"`
}

type geminiToolCfg struct {
	FunctionCallingConfig map[string]string `json:"functionCallingConfig"`
}

type geminiToolDecl struct {
	FunctionDeclarations []geminiFunction `json:"functionDeclarations"`
}

type geminiFunction struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text             *string             `json:"text,omitempty"`
	InlineData       *geminiInline       `json:"inlineData,omitempty"`
	FunctionCall     *geminiCall         `json:"functionCall,omitempty"`
	FunctionResponse *geminiFunctionResp `json:"functionResponse,omitempty"`
	ThoughtSignature string              `json:"thoughtSignature,omitempty"`
}

type geminiInline struct {
	MIMEType    string `json:"mimeType"`
	Data        string `json:"data"`
	DisplayName string `json:"displayName,omitempty"`
}

type geminiCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type geminiFunctionResp struct {
	Name     string         `json:"name"`
	Response map[string]any `json:"response"` // {"output": …} or {"error": …}
}

func textPart(s string) geminiPart { return geminiPart{Text: &s} }

func geminiRequest(p *Prompt, pr params) *geminiBody {
	body := &geminiBody{GenerationConfig: geminiGenConfig{MaxOutputTokens: pr.MaxTokens, Temperature: pr.Temperature}, Contents: []geminiContent{}}
	for _, m := range p.Messages {
		if m.Role == "user" {
			body.Contents = append(body.Contents, geminiContent{Role: "user", Parts: geminiUser(m)})
		} else {
			body.Contents = append(body.Contents, geminiContent{Role: "model", Parts: geminiModel(m, pr.Foreign)})
		}
	}
	if th := pr.Thinking; th.Enabled {
		cfg := &geminiThinkingCfg{IncludeThoughts: true}
		if th.Effort != "" {
			cfg.ThinkingLevel = th.Effort
		} else {
			cfg.ThinkingBudget = th.Budget
		}
		body.GenerationConfig.ThinkingConfig = cfg
	}
	if p.System != "" {
		body.SystemInstruction = &geminiContent{Parts: []geminiPart{textPart(p.System)}}
	}
	var decls []geminiFunction
	for _, t := range p.Tools {
		decls = append(decls, geminiFunction{Name: WireName(t.Name), Description: t.Description, ParametersJSONSchema: t.Schema})
	}
	if len(decls) > 0 {
		body.Tools = []geminiToolDecl{{FunctionDeclarations: decls}}
		body.ToolConfig = &geminiToolCfg{FunctionCallingConfig: map[string]string{"mode": "AUTO"}}
	}
	return body
}

func geminiUser(m Message) []geminiPart {
	var parts []geminiPart
	for _, p := range m.Parts {
		if p.Kind == PartToolResult {
			resp := map[string]any{"output": p.Text}
			switch {
			case p.Synthetic:
				resp = map[string]any{"error": p.Text, "success": false} // as Flemma sends an orphan's
			case p.IsError:
				resp = map[string]any{"error": p.Text}
			}
			parts = append(parts, geminiPart{FunctionResponse: &geminiFunctionResp{Name: WireName(p.Name), Response: resp}})
		}
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case PartText:
			if strings.TrimSpace(p.Text) != "" {
				parts = append(parts, textPart(p.Text))
			}
		case PartFile:
			if p.File.IsText() {
				parts = append(parts, textPart(string(p.File.Data)))
				continue
			}
			parts = append(parts, geminiPart{InlineData: &geminiInline{MIMEType: p.File.MIME,
				Data: base64.StdEncoding.EncodeToString(p.File.Data), DisplayName: cmp.Or(path.Base(p.File.Path), "file")}})
		}
	}
	if len(parts) == 0 {
		parts = append(parts, textPart(""))
	}
	return parts
}

// geminiModel: foreign thinking as text, the text, then the calls; the
// turn's own thought signature rides on the first call, or on the text
// when there is none (the API's rule).
func geminiModel(m Message, foreign string) []geminiPart {
	sig := ""
	var texts []string
	var calls []geminiPart
	for _, p := range m.Parts {
		switch p.Kind {
		case PartThinking:
			if isNative(p, "vertex") {
				sig = p.Signature.Value
			}
		case PartText:
			texts = append(texts, p.Text)
		case PartToolUse:
			calls = append(calls, geminiPart{FunctionCall: &geminiCall{Name: WireName(p.Name), Args: p.Input}})
		}
	}
	if sig != "" && len(calls) > 0 {
		calls[0].ThoughtSignature = sig
	}
	var parts []geminiPart
	if f := foreignThinking(m, "vertex", foreign); f != "" {
		parts = append(parts, textPart(f))
	}
	if t := strings.TrimSpace(strings.Join(texts, "")); t != "" {
		tp := textPart(t)
		if len(calls) == 0 {
			tp.ThoughtSignature = sig
		}
		parts = append(parts, tp)
	}
	parts = append(parts, calls...)
	if len(parts) == 0 {
		empty := textPart("")
		if len(calls) == 0 {
			empty.ThoughtSignature = sig
		}
		parts = append(parts, empty)
	}
	return parts
}
