package contextwin

import (
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// layout is what compaction and trimming need to know of a document's
// messages: where a cut may fall (SPEC §11: never between a tool use and its
// result, never inside an unfinished cycle) and where turns start.
type layout struct {
	doc *chatdoc.Document
	n   int
	// first is the first message that may move: the leading `@System:`
	// messages stay where they are.
	first int
	// lastSystem is the document's last `@System:` message (the one the
	// model gets as its system prompt, provider.BuildPrompt), -1 for none.
	lastSystem int
	// open is the first message of an unfinished cycle (SPEC §2): nothing
	// from it on may move or change. n when every cycle is finished.
	open int
	// tied[k] > 0 when a cut before message k would part a call from its
	// result (or a background call's result from its job's result).
	tied []int32
	// jobs is the message of each job's Job Result block.
	jobs map[string]int
}

func newLayout(doc *chatdoc.Document) *layout {
	l := &layout{doc: doc, n: doc.MessageCount(), lastSystem: -1}
	l.open = l.n
	for l.first < l.n && doc.Message(l.first).Role == "System" {
		l.first++
	}
	for i := l.n - 1; i >= 0 && l.lastSystem < 0; i-- {
		if doc.Message(i).Role == "System" {
			l.lastSystem = i
		}
	}
	l.findJobs()
	diff := make([]int32, l.n+1)
	tie := func(a, b int) { // messages a < b stay on one side of any cut
		if a < b {
			diff[a+1]++
			diff[b+1]--
		}
	}
	for _, r := range doc.ToolResults() {
		use := l.useMessage(r)
		if use >= 0 {
			tie(use, r.Message)
		} else {
			use = r.Message // an orphan result: only its own message
		}
		if r.IsPlaceholder() {
			l.open = min(l.open, use)
		}
		if job := r.Job(); job != "" {
			if at, done := l.jobs[job]; done {
				tie(r.Message, at)
			} else {
				l.open = min(l.open, use) // a job still running answers into a later @You:
			}
		}
	}
	l.openCalls()
	l.tied = diff[:l.n]
	for k := 1; k < l.n; k++ {
		l.tied[k] += l.tied[k-1]
	}
	return l
}

// useMessage is the message of the tool use a result answers: the
// message before it when that one has a use of its ID (a repeated ID pairs
// with its own call), else the first use of the ID; -1 for none.
func (l *layout) useMessage(r *chatdoc.ToolResult) int {
	u := l.doc.ToolUse(r.ID)
	if u == nil || u.Message >= r.Message {
		return -1
	}
	if prev := r.Message - 1; prev > u.Message {
		for _, u := range l.doc.Message(prev).ToolUses {
			if u.ID == r.ID {
				return prev
			}
		}
	}
	return u.Message
}

// openCalls marks the last Assistant message open when one of its tool
// uses has no result yet: categorizing it is the cycle's next step (an
// unanswered use in an earlier turn is history, SPEC §2).
func (l *layout) openCalls() {
	for i := l.n - 1; i >= 0; i-- {
		m := l.doc.Message(i)
		if m.Role != "Assistant" {
			continue
		}
		for _, u := range m.ToolUses {
			if r := l.doc.ToolResult(u.ID); r == nil || r.Message <= i {
				l.open = min(l.open, i)
			}
		}
		return
	}
}

// findJobs finds the Job Result blocks, when a result names a job (rare:
// the search reads every @You: message).
func (l *layout) findJobs() {
	for _, r := range l.doc.ToolResults() {
		if r.Job() != "" {
			l.jobs = map[string]int{}
			for _, j := range l.doc.JobResults() {
				if _, seen := l.jobs[j.Job]; !seen {
					l.jobs[j.Job] = l.doc.MessageIndexAt(j.Span.Start)
				}
			}
			return
		}
	}
}

// cuttable reports whether messages before k may leave while k stays.
func (l *layout) cuttable(k int) bool {
	return k > l.first && k < l.n && k <= l.open && l.tied[k] == 0
}

// startsTurn reports whether message k starts a turn: a `@You:` message
// with the user's own text, or with no tool results at all (the empty
// `@You:` the next question goes into), not one that only carries results.
func (l *layout) startsTurn(k int) bool {
	m := l.doc.Message(k)
	if m.Role != "You" {
		return false
	}
	if len(m.ToolResults) == 0 && len(l.doc.JobResultsIn(m)) == 0 {
		return true
	}
	marker := l.doc.Slice(m.MarkerSpan.Start, m.MarkerSpan.End)
	if strings.TrimSpace(marker[strings.IndexByte(marker, ':')+1:]) != "" {
		return true // the pre-0.6 form: text on the marker line
	}
	var blocks []chatdoc.Span
	for _, r := range m.ToolResults {
		blocks = append(blocks, r.Span)
	}
	for _, j := range l.doc.JobResultsIn(m) {
		blocks = append(blocks, j.Span)
	}
	pos := m.MarkerSpan.End
	for _, b := range sortedSpans(blocks) {
		if strings.TrimSpace(l.doc.Slice(pos, b.Start)) != "" {
			return true
		}
		pos = max(pos, b.End)
	}
	return strings.TrimSpace(l.doc.Slice(pos, m.Span.End)) != ""
}

func sortedSpans(s []chatdoc.Span) []chatdoc.Span {
	for i := 1; i < len(s); i++ { // few: a message's blocks, nearly in order
		for j := i; j > 0 && s[j].Start < s[j-1].Start; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// turns counts the turns of the conversation.
func (l *layout) turns() int {
	n := 0
	for k := range l.n {
		if l.startsTurn(k) {
			n++
		}
	}
	return n
}

// keepFrom is the last message whose start leaves at least keepTokens
// (at bytesPerToken) of the document after it; -1 when the whole
// conversation is within them.
func (l *layout) keepFrom(keepTokens int) int {
	at := l.doc.Len() - max(keepTokens, 0)*bytesPerToken
	if at < 0 {
		return -1
	}
	return l.doc.MessageIndexAt(at)
}
