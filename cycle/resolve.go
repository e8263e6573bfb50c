package cycle

import (
	"fmt"
	"strings"
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// Result is a finished result the server writes into a placeholder.
type Result struct {
	Text    string
	IsError bool
	// Record says the journal must record Text as the tool's final result
	// before the edit (an interrupted run): if the edit never lands, the
	// next pass writes the same text, and the tool still never runs.
	Record bool
}

// Resolution is phase 2's plan for one pass (SPEC §2): results to write
// without running anything, approved blocks to set back to pending (their
// approval does not count), and tools to start.
type Resolution struct {
	Results map[string]Result
	Resets  map[string]bool
	Run     []string
}

// Resolve plans phase 2 for the placeholders a pass may touch — all of them
// with mode.Force, else those of this session — or only the block of
// `only`: denied, rejected and aborted blocks get their fixed texts; blocks
// the user filled become results carrying their text (only on
// chatls.advance, never while they type); blocks whose tool the journal
// knows get the recorded result (never run again); approved blocks that
// pass the gate start; approved blocks without a valid approval of this
// session are handed back to the user (reset to pending) when revoked or
// on chatls.advance. A policy deny always wins.
func Resolve(doc *chatdoc.Document, l *Ledger, mode Mode, only string, facts Facts) Resolution {
	dups := DuplicateIDs(doc)
	plan := Resolution{Results: map[string]Result{}, Resets: map[string]bool{}}
	for _, r := range doc.ToolResults() {
		if !r.IsPlaceholder() || (only != "" && r.ID != only) || doc.ToolResult(r.ID) != r {
			continue // a second result for an ID never counts
		}
		if l.Busy(r.ID) || (!mode.Force && !l.touched[r.ID]) {
			continue
		}
		u := doc.ToolUse(r.ID)
		if u == nil || dups[r.ID] {
			continue // an orphan placeholder or an ambiguous ID: diagnosed, never run
		}
		filled := strings.TrimSpace(r.Content) != ""
		if filled && (r.Status == chatdoc.StatusPending || r.Status == chatdoc.StatusApproved) {
			// Content-overwrite protection: the user's text is the result,
			// whatever else is known about the tool.
			if mode.Force {
				plan.Results[r.ID] = Result{Text: r.Content}
			}
			continue
		}
		if res, known := journalResult(facts.journal(r.ID)); known {
			if res != nil {
				plan.Results[r.ID] = *res
			}
			continue
		}
		switch r.Status {
		case chatdoc.StatusDenied:
			plan.Results[r.ID] = Result{Text: TextDenied, IsError: true}
		case chatdoc.StatusAborted:
			plan.Results[r.ID] = Result{Text: AbortText(doc, u), IsError: true}
		case chatdoc.StatusRejected:
			if filled {
				plan.Results[r.ID] = Result{Text: r.Content, IsError: true}
			} else {
				plan.Results[r.ID] = Result{Text: TextRejected, IsError: true}
			}
		case chatdoc.StatusPending, chatdoc.StatusApproved:
			if r.Status == chatdoc.StatusPending {
				if facts.Decide(u).Decision == approval.Deny {
					plan.Results[r.ID] = Result{Text: TextDenied, IsError: true}
				}
				continue // pending: waits for the user
			}
			_, v, ok := mayRun(l, u, facts)
			switch {
			case v.Decision == approval.Deny:
				plan.Results[r.ID] = Result{Text: TextDenied, IsError: true} // even over the user's approval
			case ok:
				plan.Run = append(plan.Run, r.ID)
			case l.revoked[r.ID] || mode.Force:
				plan.Resets[r.ID] = true
			}
		}
	}
	return plan
}

// journalResult is the result for a tool the journal already knows: known
// is true when the tool must not start. res is nil while it runs in this
// process (maybe for another open copy of the document).
func journalResult(e JournalEntry) (res *Result, known bool) {
	switch e.State {
	case StartedHere:
		return nil, true
	case Interrupted:
		return &Result{Text: TextInterrupted, IsError: true, Record: true}, true
	case Finished:
		when := e.Finished.UTC().Format(time.RFC3339)
		switch {
		case !e.Known:
			return &Result{Text: fmt.Sprintf(TextRanBefore, when), IsError: true}, true
		case e.Resolution:
			return &Result{Text: e.Text, IsError: e.IsError}, true
		}
		return &Result{Text: e.Text + "\n\n" + fmt.Sprintf(TextRecordedNote, when), IsError: e.IsError}, true
	}
	return nil, false
}

// AbortText is the abort marker's message of the tool use's Assistant
// message, or the default text.
func AbortText(doc *chatdoc.Document, u *chatdoc.ToolUse) string {
	if u.Message >= 0 && u.Message < doc.MessageCount() {
		if a := doc.Message(u.Message).Abort(); a != nil && strings.TrimSpace(a.Message) != "" {
			return strings.TrimSpace(a.Message)
		}
	}
	return TextAborted
}

// ResultEdits replaces each still-open placeholder in results by its
// result; a block already resolved gets nothing (never written twice).
func ResultEdits(doc *chatdoc.Document, results map[string]Result) ([]chatdoc.TextEdit, error) {
	var edits []chatdoc.TextEdit
	for id, res := range results {
		r := doc.ToolResult(id)
		if r == nil || !r.IsPlaceholder() {
			continue
		}
		e, err := chatdoc.ReplaceWithResult(doc, id, res.Text, res.IsError)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	return edits, nil
}

// StatusEdits rewrites the status of each placeholder in ids that still
// has status from.
func StatusEdits(doc *chatdoc.Document, ids map[string]bool, from, to chatdoc.Status) ([]chatdoc.TextEdit, error) {
	var edits []chatdoc.TextEdit
	for id := range ids {
		r := doc.ToolResult(id)
		if r == nil || r.Status != from {
			continue
		}
		e, err := chatdoc.SetStatus(doc, id, to)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	return edits, nil
}

// FinishedText is what replaces the placeholder r of a tool that finished
// with result text (an error when isError): the result — or, when the user
// wrote into the block while the tool ran (content-overwrite protection,
// SPEC §2), their text, a blank line and note (where the output went),
// flagged as an error only when they rejected the call.
func FinishedText(r *chatdoc.ToolResult, text string, isError bool, note func() string) (string, bool) {
	if strings.TrimSpace(r.Content) == "" {
		return text, isError
	}
	return strings.TrimRight(r.Content, "\r\n") + "\n\n" + note(), r.Status == chatdoc.StatusRejected
}
