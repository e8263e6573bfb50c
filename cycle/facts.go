package cycle

import (
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// Facts are what the cycle consults beyond the document and its ledger.
// The server answers them: the policy for the document (with its sandbox
// state) and the execution journal.
type Facts struct {
	// Decide is the policy's verdict on one call of the document.
	Decide func(u *chatdoc.ToolUse) approval.Verdict
	// Journal is what the execution journal knows about a tool ID; nil
	// when there is no journal (then nothing can run: see Gate's callers).
	Journal func(id string) JournalEntry
	// Invalid is the error result of a call to a tool chatls does not offer
	// (UnknownTool) or of an input the tool's schema rejects ("" when the
	// call can run; nil: calls are not checked). Such a call gets that
	// result at once, without a placeholder and without asking the policy
	// (SPEC §1, §5).
	Invalid func(u *chatdoc.ToolUse) string
}

// JournalState mirrors journal.State without importing the journal's I/O.
type JournalState int

const (
	// NeverStarted: the tool may run.
	NeverStarted JournalState = iota
	// StartedHere: started by this process and not finished.
	StartedHere
	// Interrupted: started by an earlier process that never finished it.
	Interrupted
	// Finished: a result was produced (by this or an earlier process).
	Finished
)

// JournalEntry is the journal's knowledge of one tool ID.
type JournalEntry struct {
	State JournalState
	// For Finished: the recorded result. Known is false for finishes
	// written without their result (a journal from an older chatls);
	// Resolution says chatls wrote it without running the tool.
	Text       string
	IsError    bool
	Known      bool
	Resolution bool
	Finished   time.Time
	Started    time.Time
}

func (f Facts) journal(id string) JournalEntry {
	if f.Journal == nil {
		return JournalEntry{}
	}
	return f.Journal(id)
}

// AlreadyRan says whether the journal knows the tool finished or was
// interrupted: it never runs again; chatls.advance writes what is recorded.
func (f Facts) AlreadyRan(id string) bool {
	switch f.journal(id).State {
	case Finished, Interrupted:
		return true
	}
	return false
}
