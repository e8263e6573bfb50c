package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"
)

// UpdateKind is what a session/update carries; the values are ACP's own
// sessionUpdate names.
type UpdateKind string

const (
	UpdateMessage        UpdateKind = "agent_message_chunk" // Text: a piece of the answer
	UpdateThought        UpdateKind = "agent_thought_chunk" // Text: a piece of visible reasoning
	UpdateToolCall       UpdateKind = "tool_call"           // Tool: a new call, or the same ID again with more
	UpdateToolCallUpdate UpdateKind = "tool_call_update"    // Tool: what changed (unset fields did not)
	UpdatePlan           UpdateKind = "plan"                // Plan: the whole plan, replacing the last
	UpdateUsage          UpdateKind = "usage_update"        // Usage (ACP unstable; Prompt adds the turn's tokens)
	UpdateOther          UpdateKind = "other"               // Raw: a kind chatls does not render (Name says which)
)

// Update is one session/update in chatls's terms. Raw is the update's JSON
// as the agent sent it, for every kind.
type Update struct {
	Kind  UpdateKind
	Name  string // the agent's sessionUpdate name (differs from Kind for other)
	Text  string
	Tool  *ToolCall
	Plan  []PlanEntry
	Usage *Usage
	Raw   json.RawMessage
}

// ToolCall is a tool call as the agent reports it. In a tool_call_update,
// empty strings and nil fields are the ones that did not change.
type ToolCall struct {
	ID        string
	Title     string
	Kind      string // read, edit, delete, move, search, execute, think, fetch, switch_mode, other
	Status    string // pending, in_progress, completed, failed
	RawInput  json.RawMessage
	RawOutput json.RawMessage
	Content   []ToolContent // nil: unchanged; ACP replaces the whole list
	Locations []Location
}

// ToolContent is one item of a call's output: text, a diff, or a terminal
// (created with terminal/create) whose output it shows.
type ToolContent struct {
	Text       string
	Diff       *Diff
	TerminalID string
}

// Diff is a file change; OldText is nil for a new file.
type Diff struct {
	Path    string
	OldText *string
	NewText string
}

// Location is a file (and line, 0: none) a call touches.
type Location struct {
	Path string
	Line int
}

// PlanEntry is one step of the agent's plan.
type PlanEntry struct {
	Content  string
	Status   string // pending, in_progress, completed
	Priority string // high, medium, low
}

// Usage is what the agent reports of its consumption. usage_update fills
// the context fields and cost; the prompt's answer fills the tokens.
type Usage struct {
	ContextUsed, ContextSize int
	Cost                     float64
	Currency                 string

	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens, ThoughtTokens, TotalTokens int
}

// rawTool is the part of a tool call the SDK decodes as `any` (losing the
// key order chatls shows), read again as raw JSON.
type rawTool struct {
	RawInput  json.RawMessage `json:"rawInput"`
	RawOutput json.RawMessage `json:"rawOutput"`
}

// decodeUpdate turns one update's JSON into an Update; what does not decode
// is an UpdateOther, never dropped.
func decodeUpdate(raw json.RawMessage) Update {
	var head struct {
		SessionUpdate string `json:"sessionUpdate"`
	}
	_ = json.Unmarshal(raw, &head)
	u := Update{Kind: UpdateOther, Name: head.SessionUpdate, Raw: raw}
	var rt rawTool
	_ = json.Unmarshal(raw, &rt)
	switch UpdateKind(head.SessionUpdate) {
	case UpdateMessage, UpdateThought:
		var v sdk.SessionUpdateAgentMessageChunk
		if json.Unmarshal(raw, &v) == nil {
			u.Kind, u.Text = UpdateKind(head.SessionUpdate), blockText(v.Content)
		}
	case UpdateToolCall:
		var v sdk.SessionUpdateToolCall
		if json.Unmarshal(raw, &v) == nil {
			u.Kind = UpdateToolCall
			u.Tool = &ToolCall{
				ID: string(v.ToolCallId), Title: v.Title, Kind: string(v.Kind), Status: string(v.Status),
				RawInput: present(rt.RawInput), RawOutput: present(rt.RawOutput),
				Content: toolContent(v.Content), Locations: locations(v.Locations),
			}
		}
	case UpdateToolCallUpdate:
		var v sdk.SessionToolCallUpdate
		if json.Unmarshal(raw, &v) == nil {
			u.Kind = UpdateToolCallUpdate
			u.Tool = &ToolCall{
				ID: string(v.ToolCallId), Title: deref(v.Title), Kind: string(deref(v.Kind)), Status: string(deref(v.Status)),
				RawInput: present(rt.RawInput), RawOutput: present(rt.RawOutput),
				Content: toolContent(v.Content), Locations: locations(v.Locations),
			}
		}
	case UpdatePlan:
		var v sdk.SessionUpdatePlan
		if json.Unmarshal(raw, &v) == nil {
			u.Kind = UpdatePlan
			u.Plan = make([]PlanEntry, 0, len(v.Entries))
			for _, e := range v.Entries {
				u.Plan = append(u.Plan, PlanEntry{Content: e.Content, Status: string(e.Status), Priority: string(e.Priority)})
			}
		}
	case UpdateUsage:
		var v sdk.SessionUsageUpdate
		if json.Unmarshal(raw, &v) == nil {
			u.Kind = UpdateUsage
			u.Usage = &Usage{ContextUsed: v.Used, ContextSize: v.Size}
			if v.Cost != nil {
				u.Usage.Cost, u.Usage.Currency = v.Cost.Amount, v.Cost.Currency
			}
		}
	}
	return u
}

// turnUsage is the prompt answer's token counts as an Update.
func turnUsage(v *sdk.Usage) Update {
	u := &Usage{InputTokens: v.InputTokens, OutputTokens: v.OutputTokens, TotalTokens: v.TotalTokens,
		CacheReadTokens: deref(v.CachedReadTokens), CacheWriteTokens: deref(v.CachedWriteTokens), ThoughtTokens: deref(v.ThoughtTokens)}
	return Update{Kind: UpdateUsage, Name: "prompt_usage", Usage: u}
}

// blockText is a content block's text; other blocks name what they are.
func blockText(b sdk.ContentBlock) string {
	switch {
	case b.Text != nil:
		return b.Text.Text
	case b.ResourceLink != nil:
		return "[" + b.ResourceLink.Name + "](" + b.ResourceLink.Uri + ")"
	case b.Image != nil:
		return "[image]"
	case b.Audio != nil:
		return "[audio]"
	case b.Resource != nil:
		return "[resource]"
	}
	return ""
}

func toolContent(cs []sdk.ToolCallContent) []ToolContent {
	if cs == nil {
		return nil
	}
	out := make([]ToolContent, 0, len(cs))
	for _, c := range cs {
		switch {
		case c.Content != nil:
			out = append(out, ToolContent{Text: blockText(c.Content.Content)})
		case c.Diff != nil:
			out = append(out, ToolContent{Diff: &Diff{Path: c.Diff.Path, OldText: c.Diff.OldText, NewText: c.Diff.NewText}})
		case c.Terminal != nil:
			out = append(out, ToolContent{TerminalID: c.Terminal.TerminalId})
		}
	}
	return out
}

func locations(ls []sdk.ToolCallLocation) []Location {
	var out []Location
	for _, l := range ls {
		out = append(out, Location{Path: l.Path, Line: deref(l.Line)})
	}
	return out
}

// present is raw JSON that was sent and is not null.
func present(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
