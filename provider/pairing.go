package provider

import "github.com/chatls/chatls/chatdoc"

// pairResults gives each result the name of its use and answers every use
// without a finished result (none, or a placeholder still open) with the
// error result OrphanText, placed right after its own use: first in the
// next user message, or in a user message of its own (SPEC §7; Flemma puts
// them at the very end, which breaks when the orphan is not in the last
// turn). Each orphan gets the warning Flemma gives.
func (b *promptBuilder) pairResults(msgs []Message) []Message {
	answered := map[string]bool{}
	for _, m := range msgs {
		for i := range m.Parts {
			if p := &m.Parts[i]; p.Kind == PartToolResult {
				answered[p.ID] = true
				if u := b.doc.ToolUse(p.ID); u != nil {
					p.Name = u.Name
				}
			}
		}
	}
	out := make([]Message, 0, len(msgs)+1)
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		out = append(out, m)
		if m.Role != "assistant" {
			continue
		}
		var orphans []Part
		for _, p := range m.Parts {
			if p.Kind != PartToolUse || answered[p.ID] {
				continue
			}
			answered[p.ID] = true // a repeated ID is answered once
			orphans = append(orphans, Part{Kind: PartToolResult, ID: p.ID, Name: p.Name, Text: OrphanText, IsError: true, Synthetic: true})
			span := chatdoc.Span{}
			if u := b.doc.ToolUse(p.ID); u != nil {
				span = u.HeaderSpan
			}
			b.problem(span, Warning, "Tool call '%s' (%s) has no matching tool result. A synthetic 'No result provided' error response will be sent to the API.", p.Name, p.ID)
		}
		if len(orphans) == 0 {
			continue
		}
		if i+1 < len(msgs) && msgs[i+1].Role == "user" {
			next := msgs[i+1]
			next.Parts = append(orphans, next.Parts...)
			msgs[i+1] = next
			continue
		}
		out = append(out, Message{Role: "user", Parts: orphans})
	}
	return out
}
