// Package anthropicsse writes the Anthropic Messages stream (server-sent
// events) of one scripted answer, for the tests that put a real agent
// (Claude Code through ACP) in front of a local server.
package anthropicsse

import (
	"encoding/json"
	"fmt"
	"io"
)

func start(n int) string {
	return fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`, n)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Text is answer n: text, then end_turn.
func Text(n int, text string) []string {
	return []string{start(n),
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + quote(text) + `}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`,
		`{"type":"message_stop"}`}
}

// Tool is answer n: one call of name (ID toolu_NN) with the JSON input.
func Tool(n int, name, input string) []string {
	return []string{start(n),
		fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_%02d","name":%q,"input":{}}}`, n, name),
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":` + quote(input) + `}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5}}`,
		`{"type":"message_stop"}`}
}

// Write sends the events, each under its type's event name.
func Write(w io.Writer, events []string) {
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(e), &head)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", head.Type, e)
	}
}
