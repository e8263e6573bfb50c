package cycle

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// Diagnostics describe the cycle's state of each block (SPEC §3): tool
// uses without a result (hint), pending approvals (information — a status
// line in editors without progress UI), approvals that don't count,
// running tools, and tools the journal says already ran. preview is the
// one-line description of a call; now dates running tools.
func Diagnostics(doc *chatdoc.Document, l *Ledger, facts Facts, preview func(*chatdoc.ToolUse) string, now time.Time, keys Keys) []chatdoc.Diagnostic {
	return (*DiagnosticsCache)(nil).Diagnostics(doc, l, facts, preview, now, keys)
}

// DiagnosticsCache is Diagnostics remembering, per part of the document
// (chatdoc.EachPart), the few blocks that need a closer look: uses whose
// result is not beside them, and placeholders. After a keystroke only the
// parts the edit replaced are read again; what the closer look finds
// depends on the whole document and the session, so it is done each time,
// for those few. One per document; safe for concurrent use. A nil cache
// remembers nothing.
type DiagnosticsCache struct {
	mu    sync.Mutex
	parts map[chatdoc.PartKey]partMarks
}

// partMarks are a part's blocks to look at, by their offset from the
// part's first tool use or result.
type partMarks struct {
	uses         []markedUse // valid uses not answered beside them (answeredNext)
	placeholders []int
}

type markedUse struct {
	offset int
	id     string
}

// Diagnostics is the package's Diagnostics through the cache.
func (c *DiagnosticsCache) Diagnostics(doc *chatdoc.Document, l *Ledger, facts Facts, preview func(*chatdoc.ToolUse) string, now time.Time, keys Keys) []chatdoc.Diagnostic {
	var known, parts map[chatdoc.PartKey]partMarks
	if c != nil {
		c.mu.Lock()
		known = c.parts
		c.mu.Unlock()
		parts = make(map[chatdoc.PartKey]partMarks, len(known))
	}
	var out []chatdoc.Diagnostic
	var placeholders []int
	// Nodes are read as stored and placed only when reported on: after a
	// keystroke near the top nothing else needs copying.
	doc.EachPart(func(p chatdoc.Part) {
		marks, ok := known[p.Key]
		if !ok {
			marks = markPart(p)
		}
		if parts != nil {
			parts[p.Key] = marks
		}
		for _, u := range marks.uses {
			if doc.ToolResultIndex(u.id) < 0 {
				out = append(out, chatdoc.Diagnostic{Span: doc.ToolUseAt(p.FirstUse + u.offset).HeaderSpan, Severity: chatdoc.SeverityHint, Code: CodeUnanswered, ToolID: u.id,
					Message: "tool use without a result: " + keys.Do(KeyAdvance) + " to ask about it"})
			}
		}
		for _, k := range marks.placeholders {
			placeholders = append(placeholders, p.FirstResult+k)
		}
	})
	for _, i := range placeholders {
		if r := doc.ToolResultAt(i); doc.ToolUseIndex(r.ID) >= 0 {
			out = append(out, resultDiagnostics(doc, r, l, facts, preview, now, keys)...)
		}
	}
	if c != nil {
		c.mu.Lock()
		c.parts = parts // only the current parts: a key holds its part's messages
		c.mu.Unlock()
	}
	return out
}

// markPart finds a part's blocks to look at.
func markPart(p chatdoc.Part) partMarks {
	var marks partMarks
	use, result := 0, 0
	for j, m := range p.Stored {
		for k, u := range m.ToolUses {
			if u.Valid() && !answeredNext(p.Stored, j, k, u.ID) {
				marks.uses = append(marks.uses, markedUse{use, u.ID})
			}
			use++
		}
		for _, r := range m.ToolResults {
			if r.IsPlaceholder() {
				marks.placeholders = append(marks.placeholders, result)
			}
			result++
		}
	}
	return marks
}

// resultDiagnostics is what Diagnostics says about placeholder r.
func resultDiagnostics(doc *chatdoc.Document, r *chatdoc.ToolResult, l *Ledger, facts Facts, preview func(*chatdoc.ToolUse) string, now time.Time, keys Keys) []chatdoc.Diagnostic {
	var out []chatdoc.Diagnostic
	u := doc.ToolUse(r.ID)
	run, busy := l.Run(r.ID)
	running := busy && run.Phase != Writing
	empty := strings.TrimSpace(r.Content) == ""
	waiting := empty && (r.Status == chatdoc.StatusPending || r.Status == chatdoc.StatusApproved)
	at := func(sev chatdoc.Severity, code, msg string) {
		out = append(out, chatdoc.Diagnostic{Span: r.HeaderSpan, Severity: sev, Code: code, ToolID: r.ID, Message: msg})
	}
	switch {
	case !busy && waiting && facts.AlreadyRan(r.ID):
		// Approving it again would not run it: the journal says it ran.
		at(chatdoc.SeverityInformation, CodeAlreadyRan, fmt.Sprintf(MsgAlreadyRan, keys.Do(KeyAdvance)))
	case running:
		at(chatdoc.SeverityInformation, CodeRunning, fmt.Sprintf("running %s (%s)", u.Name, now.Sub(run.Started).Round(time.Second)))
	case r.Status == chatdoc.StatusPending && empty:
		at(chatdoc.SeverityInformation, CodePending, "approval pending: "+preview(u))
	case r.Status == chatdoc.StatusApproved && empty && l.Revoked(r.ID):
		at(chatdoc.SeverityWarning, CodeRevoked, MsgRevoked)
	case r.Status == chatdoc.StatusApproved && empty && !l.UserApproved(u):
		if facts.Decide(u).Decision != approval.Approve {
			at(chatdoc.SeverityWarning, CodeApprovedOld, MsgApprovedBefore)
		}
	}
	return out
}

// answeredNext reports whether the k-th tool use of message j is answered
// where results usually are: the k-th result of the next message. It saves
// the ID lookup for nearly every use of a long conversation; false means
// "look it up".
func answeredNext(msgs []*chatdoc.Message, j, k int, id string) bool {
	if j+1 >= len(msgs) {
		return false
	}
	results := msgs[j+1].ToolResults
	return k < len(results) && results[k].ID == id
}
