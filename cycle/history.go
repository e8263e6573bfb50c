package cycle

import "github.com/chatls/chatls/chatdoc"

// Tool uses of earlier turns are history (SPEC §2 phase 1): a use without
// a result in any Assistant message but the last is an orphan — a result
// the user deleted, a call Flemma's user never answered. It gets no
// placeholder, never runs and never blocks a send; the request carries the
// synthetic result `No result provided` right after it (provider pairing).
// Only the last Assistant message's unanswered uses are categorized.

// lastAssistant is the index of the document's last Assistant message, -1
// if it has none. Messages are walked from the end: the last one is nearly
// always it or the one before.
func lastAssistant(doc *chatdoc.Document) int {
	for i := doc.MessageCount() - 1; i >= 0; i-- {
		if doc.Message(i).Role == "Assistant" {
			return i
		}
	}
	return -1
}

// currentUses is the set of tool uses (by header span) of the last
// Assistant message: the ones a send waits for.
func currentUses(doc *chatdoc.Document) map[chatdoc.Span]bool {
	i := lastAssistant(doc)
	if i < 0 {
		return nil
	}
	uses := doc.Message(i).ToolUses
	set := make(map[chatdoc.Span]bool, len(uses))
	for _, u := range uses {
		set[u.HeaderSpan] = true
	}
	return set
}
