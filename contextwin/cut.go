package contextwin

import (
	"fmt"

	"github.com/chatls/chatls/chatdoc"
)

// Cut is where compaction cuts a document: messages [From, To) leave it.
type Cut struct {
	From, To int
	// Keep is a message in [From, To) that stays: the document's last
	// `@System:` message, the model's system prompt; -1 for none.
	Keep int
	// AtTurn says message To starts a turn (a `@You:` with the user's own
	// text); else it is the first message after a finished tool call.
	AtTurn bool
}

// Moved is how many messages leave for the archive.
func (c Cut) Moved() int {
	if c.Keep >= 0 {
		return c.To - c.From - 1
	}
	return c.To - c.From
}

// CutPoint is where to cut doc so that the system message and the newest
// turns worth at least keepTokens (at 4 bytes a token) stay. The cut is a
// message boundary that parts no tool use from its result (nor a
// background call from its job's result) and leaves an unfinished cycle
// whole (SPEC §2: placeholders, the last answer's calls without results, a
// job still running), and at least the last message stays.
//
// It prefers the latest turn start (a `@You:` with the user's own text):
// a summary then replaces whole exchanges. When the turn start moves less
// than half of what the latest allowed boundary would (a long run of tool
// calls after one question), it cuts at that boundary instead, the first
// message after a finished call.
func CutPoint(doc *chatdoc.Document, keepTokens int) (Cut, error) {
	l := newLayout(doc)
	if l.n == 0 {
		return Cut{}, fmt.Errorf("nothing to compact: the document has no messages")
	}
	keepFrom := l.keepFrom(keepTokens)
	limit := min(keepFrom, l.open, l.n-1)
	anyCut, turnCut := -1, -1
	for k := limit; k > l.first && turnCut < 0; k-- {
		if !l.cuttable(k) {
			continue
		}
		if anyCut < 0 {
			anyCut = k
		}
		if l.startsTurn(k) {
			turnCut = k
		}
	}
	if anyCut < 0 {
		return Cut{}, l.nothingToCut(keepFrom, keepTokens)
	}
	cut := Cut{From: l.first, To: anyCut, Keep: -1}
	start := doc.MessageSpan(l.first).Start
	if turnCut > 0 && 2*(doc.MessageSpan(turnCut).Start-start) >= doc.MessageSpan(anyCut).Start-start {
		cut.To, cut.AtTurn = turnCut, true
	}
	if l.lastSystem >= cut.From && l.lastSystem < cut.To {
		cut.Keep = l.lastSystem
	}
	return cut, nil
}

// nothingToCut says why no cut exists, and what would make one.
func (l *layout) nothingToCut(keepFrom, keepTokens int) error {
	if l.open <= keepFrom && l.open <= l.first {
		line := l.doc.Lines.LineOf(l.doc.MessageSpan(l.open).Start) + 1
		return fmt.Errorf("nothing to compact: the tool calls at line %d are unfinished and nothing before them can move; finish or reject them first", line)
	}
	if keepFrom <= l.first {
		return fmt.Errorf("nothing to compact: the conversation has only %d turns, all within the newest %s tokens that compaction keeps (context.keepRecent)",
			l.turns(), WindowLabel(keepTokens))
	}
	return fmt.Errorf("nothing to compact: the messages before the newest %s tokens belong to tool calls whose results are among them", WindowLabel(keepTokens))
}
