package session

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/contextwin"
	"github.com/chatls/chatls/provider"
)

// answerRecord is a response of this session, shown as a code lens on its
// `@Assistant:` line and in the hover there (SPEC §7 "Seeing it work").
type answerRecord struct {
	// at is the offset of its `@Assistant:` line in the newest snapshot,
	// moved by every change like the stream's marker (under Session.mu).
	at       int
	entry    string
	model    string
	usage    provider.Usage
	cost     *float64
	duration time.Duration
	attempts int
	chain    string
	outcome  string
	// window is the model's context window in tokens (0: unknown), for
	// the share the request used (SPEC §11).
	window int
	// countedAt is at when the answer ended, when the provider's count
	// described the text before it: what was added or taken out before
	// the answer since (a trim, a compaction, their undo, the user's own
	// edits above) moves the estimate of the next request by its size.
	countedAt int
}

const assistantMarker = "@Assistant:"

// lensTitle is the one line of the lens:
// "claude-sonnet-4-5 · 12.3k in (10.1k cached) · 6% of 200k · 850 out · $0.0213 · 4.2 s".
func (a *answerRecord) lensTitle() string {
	in := a.usage.InputTokens + a.usage.CacheReadTokens + a.usage.CacheWriteTokens
	parts := []string{a.model, shortCount(in) + " in"}
	if a.usage.CacheReadTokens > 0 {
		parts[1] += " (" + shortCount(a.usage.CacheReadTokens) + " cached)"
	}
	if meter := contextwin.Meter(in, a.window); meter != "" {
		parts = append(parts, meter)
	}
	parts = append(parts, shortCount(a.usage.OutputTokens+a.usage.ThoughtTokens)+" out")
	if a.cost != nil {
		parts = append(parts, "$"+strconv.FormatFloat(*a.cost, 'f', 4, 64))
	}
	parts = append(parts, strconv.FormatFloat(a.duration.Seconds(), 'f', 1, 64)+" s")
	if a.outcome != "ok" {
		parts = append(parts, a.outcome)
	}
	return strings.Join(parts, " · ")
}

// hoverMarkdown is the details and the chain's totals.
func (a *answerRecord) hoverMarkdown(chainCost float64, chainResponses int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** via `%s` — %s\n\n", a.model, a.entry, a.outcome)
	fmt.Fprintf(&b, "| | tokens |\n|---|---|\n| input | %d |\n| cache read | %d |\n| cache write | %d |\n| output | %d |\n\n",
		a.usage.InputTokens, a.usage.CacheReadTokens, a.usage.CacheWriteTokens, a.usage.OutputTokens+a.usage.ThoughtTokens)
	if a.cost != nil {
		fmt.Fprintf(&b, "cost $%.4f · ", *a.cost)
	} else {
		b.WriteString("price unknown · ")
	}
	fmt.Fprintf(&b, "%.1f s · %d attempt(s)\n\nchain: %d response(s), $%.4f", a.duration.Seconds(), a.attempts, chainResponses, chainCost)
	return b.String()
}

// answerAt is the session's response whose `@Assistant:` line holds offset.
func (s *Session) answerAt(ds *Doc, doc *chatdoc.Document, offset int) *answerRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	if doc != ds.snap {
		return nil
	}
	for _, a := range ds.answers {
		if offset >= a.at && offset <= a.at+len(assistantMarker) && validAnswer(doc, a) {
			return a
		}
	}
	return nil
}

// answerLenses are the responses that still point at their line.
func (s *Session) answerLenses(ds *Doc, doc *chatdoc.Document) []answerRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	if doc != ds.snap {
		return nil
	}
	var out []answerRecord
	for _, a := range ds.answers {
		if validAnswer(doc, a) {
			out = append(out, *a)
		}
	}
	return out
}

// validAnswer says whether the record still points at an @Assistant: line.
func validAnswer(doc *chatdoc.Document, a *answerRecord) bool {
	return a.at >= 0 && a.at+len(assistantMarker) <= doc.Len() && doc.Slice(a.at, a.at+len(assistantMarker)) == assistantMarker
}

// AnswerHover is the hover text of a response's `@Assistant:` marker at
// offset, and the marker's span; ok is false when offset is not on one.
func (s *Session) AnswerHover(ds *Doc, doc *chatdoc.Document, offset int) (markdown string, span chatdoc.Span, ok bool) {
	if ds == nil {
		return "", chatdoc.Span{}, false
	}
	a := s.answerAt(ds, doc, offset)
	if a == nil {
		return "", chatdoc.Span{}, false
	}
	var cost float64
	n := 0
	if s.usage != nil {
		if t, err := s.usage.Chain(a.chain); err == nil {
			cost, n = t.CostUSD, t.Responses
		}
	}
	return a.hoverMarkdown(cost, n), chatdoc.Span{Start: a.at, End: a.at + len(assistantMarker)}, true
}
