package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// Script is the `script` provider type: scripted responses played offline
// (SPEC §7), so the whole loop runs with no key and no network. The n-th
// request of a conversation — counted by the assistant turns already in
// the prompt — gets Responses[n]; past the end, the last one again.
type Script struct {
	Responses []ScriptResponse `json:"responses"`
	turn      int
}

// ScriptResponse is one scripted answer.
type ScriptResponse struct {
	Thinking string          `json:"thinking,omitempty"`
	Text     string          `json:"text,omitempty"`
	ToolUses []ScriptToolUse `json:"toolUses,omitempty"`
	Usage    *Usage          `json:"usage,omitempty"`
	Stop     string          `json:"stop,omitempty"` // end_turn (default), tool_use, max_tokens
	Error    *APIError       `json:"error,omitempty"`
	// DelayMs paces the text: this long before each word, as a model
	// streams (0: all at once). Demos and client tests use it to watch an
	// answer arrive, and to cancel one half-way.
	DelayMs int `json:"delayMs,omitempty"`
}

// ScriptToolUse is a scripted call; ID defaults to script_N_M.
type ScriptToolUse struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// LoadScript reads a script file.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Script
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.Responses) == 0 {
		return nil, fmt.Errorf("%s: no responses", path)
	}
	return &s, nil
}

// forPrompt fixes which response the next request plays.
func (s *Script) forPrompt(p *Prompt) *Script {
	n := 0
	for _, m := range p.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	c := *s
	c.turn = n
	return &c
}

func (s *Script) attempt(ctx context.Context, _ []byte, emit func(Event), content *bool) error {
	r := s.Responses[min(s.turn, len(s.Responses)-1)]
	if r.Error != nil {
		e := *r.Error
		return &e
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.Thinking != "" {
		*content = true
		emit(Event{Kind: EventThinkingDelta, Text: r.Thinking})
		emit(Event{Kind: EventThinking, Thinking: &ThinkingBlock{Text: r.Thinking}})
	}
	// Text streams in word-sized pieces, as a model's would.
	for _, piece := range strings.SplitAfter(r.Text, " ") {
		if piece == "" {
			continue
		}
		if err := pace(ctx, r.DelayMs); err != nil {
			return err
		}
		*content = true
		emit(Event{Kind: EventText, Text: piece})
	}
	for i, u := range r.ToolUses {
		*content = true
		id := cmp.Or(u.ID, fmt.Sprintf("script_%d_%d", s.turn+1, i+1))
		input := string(u.Input)
		emit(Event{Kind: EventToolInputDelta, Text: input, Tool: &ToolCall{ID: id, Name: u.Name}})
		emit(Event{Kind: EventToolUse, Tool: toolCall(id, u.Name, input)})
	}
	if r.Usage != nil {
		emit(Event{Kind: EventUsage, Usage: *r.Usage})
	}
	stop := r.Stop
	if stop == "" {
		stop = "end_turn"
		if len(r.ToolUses) > 0 {
			stop = "tool_use"
		}
	}
	emit(Event{Kind: EventStop, StopReason: stop, Truncated: stop == "max_tokens"})
	return nil
}

// pace waits ms milliseconds, or until ctx ends.
func pace(ctx context.Context, ms int) error {
	if ms <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
