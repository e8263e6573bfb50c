package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// bigConversation: 5,000 messages, about 10 MB, with tool calls and results.
func bigConversation() string {
	var b strings.Builder
	para := strings.Repeat("All work and no play makes a long conversation. ", 40) // ~2 KB
	for i := 0; i < 2500; i++ {
		fmt.Fprintf(&b, "@You:\n%s\n%s\n\n", para, para)
		if i%5 == 0 {
			fmt.Fprintf(&b, "@Assistant:\n%s\n\n**Tool Use:** `bash` (`toolu_%d`)\n\n```json\n{\"command\":\"ls %d\"}\n```\n\n", para, i, i)
			fmt.Fprintf(&b, "@You:\n**Tool Result:** `toolu_%d`\n\n```\n%s\n```\n\n", i, para)
			continue
		}
		fmt.Fprintf(&b, "@Assistant:\n%s\n%s\n\n", para, para)
	}
	return b.String()
}

// Mapping a 5,000-message, ~10 MB conversation to an Anthropic request body,
// against encoding/json of the same prompt (the baseline of the same run).
func BenchmarkMapConversation(b *testing.B) {
	doc := chatdoc.Parse(bigConversation())
	b.SetBytes(int64(doc.Len()))
	b.Run("prompt+anthropic-body", func(b *testing.B) {
		b.SetBytes(int64(doc.Len()))
		for b.Loop() {
			p, _ := BuildPrompt(doc, PromptOptions{})
			if _, err := Body(&Request{API: "anthropic", Model: "claude-sonnet-4-6", Prompt: p}); err != nil {
				b.Fatal(err)
			}
		}
	})
	p, _ := BuildPrompt(doc, PromptOptions{})
	b.Run("baseline-encoding-json", func(b *testing.B) {
		b.SetBytes(int64(doc.Len()))
		for b.Loop() {
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Decoding a ~1 MB Anthropic event stream from a local server into events,
// per event and per byte.
func BenchmarkDecodeStream(b *testing.B) {
	var s strings.Builder
	s.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
	s.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	events := 0
	for s.Len() < 1<<20 {
		s.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"some streamed words \"}}\n\n")
		events++
	}
	s.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	body := s.String()
	srv := newReplay(b, reply{status: 200, body: body})
	srv.repeat = true
	r := &Request{API: "anthropic", Model: "m", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"}}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if _, err := Send(b.Context(), r, func(ev Event) { n++ }); err != nil || n < events {
			b.Fatal(err, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events)/1000, "µs/event")
}
