package contextwin

import (
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// SummaryInstruction ends the summary request: what the summary must hold
// (SPEC §11: goal, decisions, files touched, open work, the user's
// constraints), so that the conversation can go on from it alone.
const SummaryInstruction = `Summarize the conversation above. Your summary replaces those messages: the conversation continues from it alone, so keep everything the rest of the work needs and nothing else. Write these sections, each a short list:

Goal: what the user wants overall, in their terms.
Decisions: what was decided or found out, and why; approaches tried and rejected.
Files touched: each file read, created or changed, with what changed.
Open work: what is unfinished, failing or planned next.
The user's constraints and corrections: every instruction, preference and correction the user gave, close to their words.

Be specific: names, paths, commands, numbers and error messages. Write plain text; no tool calls. Answer with the summary only.`

// summaryIntro opens the summary request.
const summaryIntro = "These are the earliest messages of a conversation between a user and an assistant that uses tools, as a chat file (`@You:` and `@Assistant:` start messages; tool calls and their results are in fenced blocks):"

// SummaryRequest is the one user message that asks the model for the
// summary of cut's messages: summaryIntro, the messages verbatim in a
// <conversation> element, then SummaryInstruction. A provider sends it as
// a plain user message, with no tools, to the same model (or
// context.summaryModel).
//
// When budgetTokens > 0 and the messages would take more (at 4 bytes a
// token), the tool outputs among them larger than 2 KB are shortened to
// their first lines, as Trim does: the summary needs what was done, not
// every line a command printed, and the request must fit the window the
// conversation overflowed.
func SummaryRequest(doc *chatdoc.Document, cut Cut, budgetTokens int) string {
	var b strings.Builder
	b.WriteString(summaryIntro + "\n\n<conversation>\n")
	start, end := doc.MessageSpan(cut.From).Start, messageStart(doc, cut.To)
	shorten := budgetTokens > 0 && ceilDiv(end-start, bytesPerToken) > budgetTokens
	for _, s := range movedSpans(doc, cut) {
		if !shorten {
			b.WriteString(doc.Slice(s.Start, s.End))
			continue
		}
		pos := s.Start
		for _, r := range resultsIn(doc, s) {
			if r.IsPlaceholder() || r.Fence == nil || !r.Fence.Closed() || len(r.Content) <= trimAbove {
				continue
			}
			cs := r.Fence.ContentSpan
			b.WriteString(doc.Slice(pos, cs.Start))
			b.WriteString(firstLines(doc.Slice(cs.Start, cs.End), doc.Newline) + "[trimmed for this summary]" + doc.Newline)
			pos = cs.End
		}
		b.WriteString(doc.Slice(pos, s.End))
	}
	b.WriteString("</conversation>\n\n" + SummaryInstruction)
	return b.String()
}

// movedSpans are the bytes of the messages cut moves: one span, or two
// around the system message that stays.
func movedSpans(doc *chatdoc.Document, cut Cut) []chatdoc.Span {
	start, end := doc.MessageSpan(cut.From).Start, messageStart(doc, cut.To)
	if cut.Keep < 0 {
		return []chatdoc.Span{{Start: start, End: end}}
	}
	k := doc.MessageSpan(cut.Keep)
	return []chatdoc.Span{{Start: start, End: k.Start}, {Start: k.End, End: end}}
}

// resultsIn are the tool results of the messages inside s, in order.
func resultsIn(doc *chatdoc.Document, s chatdoc.Span) []*chatdoc.ToolResult {
	var out []*chatdoc.ToolResult
	for i := doc.MessageIndexAt(s.Start); i >= 0 && i < doc.MessageCount() && doc.MessageSpan(i).Start < s.End; i++ {
		out = append(out, doc.Message(i).ToolResults...)
	}
	return out
}
