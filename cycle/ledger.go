package cycle

import (
	"maps"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

// Ledger is what one session knows about one open document beyond its
// text: which tool uses were there when it opened, which placeholders it
// issued (and for which input), which approvals the user committed, and
// which tools are queued, running or being written. The execution journal,
// not the ledger, knows which tools finished. A Ledger is not safe for
// concurrent use: its owner guards it.
type Ledger struct {
	// openIDs are the tool uses present when the document was opened: they
	// wait for chatls.advance (SPEC §2 "Categorize"). The opened snapshot's
	// own index, immutable, so clones share it.
	openIDs chatdoc.IDSet
	// issued maps placeholders known as pending in this session to the
	// InputHash of their tool use at that moment.
	issued map[string]string
	// userApproved maps IDs the user approved by a committed edit to the
	// InputHash they approved.
	userApproved map[string]string
	// touched marks placeholders created or changed in this session:
	// autopilot only resolves those; the rest wait for chatls.advance.
	touched map[string]bool
	// revoked marks approvals withdrawn because the input changed.
	revoked map[string]bool
	runs    map[string]*Run
	// openUses counts, for an ID several tool uses had when the document
	// was opened, how many had it: a later use beyond that count arrived
	// in this session (openIDs knows only the ID). Immutable, shared.
	openUses map[string]int
	// escapes are the sandbox=off / network=on words the user's approvals
	// added (sandbox_escape.go).
	escapes escapeBook
}

// RunPhase is where a tool is between being taken to run and its result
// landing in the document.
type RunPhase int

const (
	// Queued: taken to run, waiting for a free slot or the journal's start.
	Queued RunPhase = iota
	// Running: the journal recorded its start; the tool runs.
	Running
	// Writing: the tool ended; its result edit is in flight.
	Writing
)

// Run is one tool from the moment it was taken to run until its result is
// written.
type Run struct {
	Phase RunPhase
	Name  string
	// Queued is when it was taken; Started when it really began (equal to
	// Queued until then). Waited says it had to wait for a free slot.
	Queued, Started time.Time
	Waited          bool
}

// NewLedger starts the ledger of a document just opened: its tool uses are
// "already there", and its pending placeholders count as issued for the
// input they have now (approving one of them is a committed user edit).
func NewLedger(doc *chatdoc.Document) *Ledger {
	l := &Ledger{
		openIDs:      doc.ToolUseIDs(),
		issued:       map[string]string{},
		userApproved: map[string]string{},
		touched:      map[string]bool{},
		revoked:      map[string]bool{},
		runs:         map[string]*Run{},
	}
	for _, r := range doc.ToolResults() {
		if r.IsPlaceholder() {
			l.escapes.seen(r)
		}
		if r.Status == chatdoc.StatusPending {
			if u := doc.ToolUse(r.ID); u != nil {
				l.issued[r.ID] = InputHash(u)
			}
		}
	}
	for _, d := range doc.Diagnostics() {
		if d.Code == chatdoc.CodeDuplicateToolID && d.ToolID != "" && l.openUses[d.ToolID] == 0 {
			if l.openUses == nil {
				l.openUses = map[string]int{}
			}
			for _, u := range doc.ToolUses() {
				if u.ID == d.ToolID {
					l.openUses[d.ToolID]++
				}
			}
		}
	}
	return l
}

// arrived says whether the tool use u, the n-th (from 1) with its ID in
// the document, came after the document was opened.
func (l *Ledger) arrived(u *chatdoc.ToolUse, n int) bool {
	at := l.openUses[u.ID]
	if at == 0 && l.openIDs.Has(u.ID) {
		at = 1
	}
	return n > at
}

// Placed records placeholders about to be inserted with these statuses:
// they belong to this session, and pending ones are issued for their
// current input.
func (l *Ledger) Placed(doc *chatdoc.Document, statuses map[string]chatdoc.Status) {
	for id, st := range statuses {
		l.touched[id] = true
		l.escapes.placed(id)
		if u := doc.ToolUse(id); u != nil && st == chatdoc.StatusPending {
			l.issued[id] = InputHash(u)
		}
	}
}

// Reissued records approved blocks set back to pending (Resolve's resets):
// the user must approve them again, for their current input.
func (l *Ledger) Reissued(doc *chatdoc.Document, ids map[string]bool) {
	for id := range ids {
		delete(l.revoked, id)
		if u := doc.ToolUse(id); u != nil {
			l.issued[id] = InputHash(u)
		}
	}
}

// Touch makes a block this session's business (chatls.run, a rule that now
// approves it), so autopilot resolves it.
func (l *Ledger) Touch(id string) { l.touched[id] = true }

// UserApproved says whether the user approved this call, for its current
// input, by a committed edit in this session.
func (l *Ledger) UserApproved(u *chatdoc.ToolUse) bool {
	h, ok := l.userApproved[u.ID]
	return ok && h == InputHash(u)
}

// Revoked says whether the approval of id was withdrawn because the call's
// input changed.
func (l *Ledger) Revoked(id string) bool { return l.revoked[id] }

// Take marks a tool as taken to run; false when it already is (or its
// result is being written).
func (l *Ledger) Take(id string, now time.Time) bool {
	if l.runs[id] != nil {
		return false
	}
	l.runs[id] = &Run{Phase: Queued, Queued: now, Started: now}
	return true
}

// Started records that a taken tool really runs now.
func (l *Ledger) Started(id, name string, now time.Time, waited bool) {
	if r := l.runs[id]; r != nil {
		r.Phase, r.Name, r.Started, r.Waited = Running, name, now, waited
	}
}

// Writing records that a tool ended and its result edit is in flight.
func (l *Ledger) Writing(id string) {
	if r := l.runs[id]; r != nil {
		r.Phase = Writing
	} else {
		l.runs[id] = &Run{Phase: Writing}
	}
}

// Done forgets a run: its result landed, or it ended without one.
func (l *Ledger) Done(id string) { delete(l.runs, id) }

// Run is the run of id, if it is taken, running or being written.
func (l *Ledger) Run(id string) (Run, bool) {
	if r := l.runs[id]; r != nil {
		return *r, true
	}
	return Run{}, false
}

// Busy says whether id is taken, running or being written.
func (l *Ledger) Busy(id string) bool { return l.runs[id] != nil }

// Active counts the tools taken, running or being written.
func (l *Ledger) Active() int { return len(l.runs) }

// WritesInFlight counts results being written.
func (l *Ledger) WritesInFlight() int {
	n := 0
	for _, r := range l.runs {
		if r.Phase == Writing {
			n++
		}
	}
	return n
}

// RunningIDs lists the tools taken or running (not those being written).
func (l *Ledger) RunningIDs() []string {
	var ids []string
	for id, r := range l.runs {
		if r.Phase != Writing {
			ids = append(ids, id)
		}
	}
	return ids
}

// Clone copies the ledger, so a pass can plan on a consistent view while
// its owner keeps taking edits.
func (l *Ledger) Clone() *Ledger {
	c := &Ledger{
		openIDs:      l.openIDs, // immutable: shared, not copied (15,000 IDs in a long conversation)
		openUses:     l.openUses,
		issued:       maps.Clone(l.issued),
		userApproved: maps.Clone(l.userApproved),
		touched:      maps.Clone(l.touched),
		revoked:      maps.Clone(l.revoked),
		runs:         make(map[string]*Run, len(l.runs)),
		escapes:      l.escapes.clone(),
	}
	for id, r := range l.runs {
		run := *r
		c.runs[id] = &run
	}
	return c
}
