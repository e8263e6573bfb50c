package cycle

import (
	"fmt"
	"sort"
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// Phases of chatls.advance's answer.
const (
	PhaseCategorize = "categorize" // placeholders were inserted
	PhaseExecute    = "execute"    // something was resolved or started
	PhaseWait       = "wait"       // the user must act, or tools run
	PhaseSend       = "send"       // nothing left: the conversation can go to the model
)

// Report is what is left to do in a document: chatls.advance's answer
// (SPEC §3) without its phase.
type Report struct {
	Phase   string `json:"phase"`
	Pending int    `json:"pending"`
	Running int    `json:"running"`
	Ready   bool   `json:"ready"`
	Message string `json:"message,omitempty"`
	// Unanswered counts the valid tool uses without a result (not part of
	// chatls.advance's answer; the pushed status shows it).
	Unanswered int `json:"-"`
}

// Count counts what is left: results being written count as running;
// placeholders of duplicated IDs, orphans and second results are
// diagnosed, not pending. Ready means nothing pending, running, unanswered
// or duplicated.
func Count(doc *chatdoc.Document, l *Ledger) Report { return (*PartCache)(nil).Count(doc, l) }

// Unanswered counts the valid tool uses that have no result anywhere in
// doc and returns the first of them (nil if none). The uses answered in the
// next message, nearly all, are told apart without an ID lookup
// (answeredNext).
func Unanswered(doc *chatdoc.Document) (count int, first *chatdoc.ToolUse) {
	uses, _ := (*PartCache)(nil).candidates(doc)
	for _, u := range uses {
		if doc.ToolResultIndex(u.id) < 0 {
			if count == 0 {
				first = doc.ToolUseAt(u.index)
			}
			count++
		}
	}
	return count, first
}

// Count is the package's Count through the cache.
func (c *PartCache) Count(doc *chatdoc.Document, l *Ledger) Report {
	dups := DuplicateIDs(doc)
	r := Report{Running: l.Active()}
	uses, placeholders := c.candidates(doc)
	var current map[chatdoc.Span]bool // the last Assistant message's uses, once needed
	for _, u := range uses {
		if !dups[u.id] && doc.ToolResultIndex(u.id) < 0 {
			if current == nil {
				current = currentUses(doc)
			}
			if current[doc.ToolUseAt(u.index).HeaderSpan] { // an orphan of an earlier turn blocks nothing
				r.Unanswered++
			}
		}
	}
	for _, p := range placeholders {
		if doc.ToolResultIndex(p.id) == p.index && doc.ToolUseIndex(p.id) >= 0 && !dups[p.id] && !l.Busy(p.id) {
			r.Pending++
		}
	}
	r.Ready = r.Pending == 0 && r.Running == 0 && r.Unanswered == 0 && len(dups) == 0
	if len(dups) > 0 {
		ids := make([]string, 0, len(dups))
		for id := range dups {
			ids = append(ids, "`"+id+"`")
		}
		sort.Strings(ids)
		r.Message = fmt.Sprintf(MsgDuplicateIDs, strings.Join(ids, ", "))
	}
	return r
}

// WithPhase completes a pass's report: the phase is what the pass did
// (categorize, execute) or, when it did nothing, send when the document is
// ready and wait otherwise.
func (r Report) WithPhase(categorized, executed bool) Report {
	switch {
	case categorized:
		r.Phase = PhaseCategorize
	case executed:
		r.Phase = PhaseExecute
	case r.Ready:
		r.Phase = PhaseSend
	default:
		r.Phase = PhaseWait
	}
	if r.Phase == PhaseSend {
		r.Message = "ready to send"
	}
	return r
}

// phaseRank orders phases from "nothing left" to "most happened".
var phaseRank = map[string]int{PhaseSend: 0, PhaseWait: 1, PhaseExecute: 2, PhaseCategorize: 3}

// Sum adds the reports of several documents (chatls.advance without a
// document): counts add up, the busiest document's phase wins.
func Sum(reports []Report) Report {
	total := Report{Phase: PhaseSend, Ready: true}
	for _, r := range reports {
		total.Pending += r.Pending
		total.Running += r.Running
		total.Ready = total.Ready && r.Ready
		if phaseRank[r.Phase] > phaseRank[total.Phase] {
			total.Phase = r.Phase
		}
	}
	if total.Phase == PhaseSend {
		total.Message = "ready to send"
	}
	return total
}
