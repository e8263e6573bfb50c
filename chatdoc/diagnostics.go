package chatdoc

import (
	"fmt"
	"runtime"
	"sort"
)

// Stable diagnostic codes. Clients and tests match on these; never rename.
const (
	CodeInlineRoleMarker     = "inline-role-marker"
	CodeToolUseNoFence       = "tool-use-no-fence"
	CodeToolUseUnclosedFence = "tool-use-unclosed-fence"
	CodeToolInputInvalidJSON = "tool-input-invalid-json"
	CodeToolInputNotObject   = "tool-input-not-object"
	CodeDuplicateToolID      = "duplicate-tool-id"
	CodeDuplicateToolResult  = "duplicate-tool-result"
	CodeOrphanResult         = "orphan-result"
	CodeResultNoFence        = "result-no-fence"
	CodeResultUnclosedFence  = "result-unclosed-fence"
	CodeUnclosedFence        = "unclosed-fence"
	CodeRoleMarkerInFence    = "role-marker-in-fence"
	CodeUnknownStatus        = "unknown-status"
	CodeConflictingStatus    = "conflicting-status"
	CodeThinkingUnclosed     = "thinking-unclosed"
	CodeFrontmatterLanguage  = "frontmatter-language" // package frontmatter's findings
	CodeFrontmatterError     = "frontmatter-error"
	CodeMissingFileReference = "missing-file-reference"
	MessageToolUseNoFence    = "Tool use requires a fenced code block with JSON input"
	messageToolInputPrefix   = "Failed to parse tool input: "
)

func diag(span Span, sev Severity, code, id, format string, args ...any) Diagnostic {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return Diagnostic{Span: span, Severity: sev, Code: code, Message: msg, ToolID: id}
}

// idFinding is a document-wide finding about IDs (a duplicate tool use ID, a
// result without a tool use, a second result), kept by list index so an
// edit that leaves all IDs alone can reuse it without a map over every ID.
type idFinding struct {
	code   string
	result bool // index is into ToolResults, else ToolUses
	index  int
}

// idIndex maps each ID to the list position of its first tool use and first
// result. Built with the findings; snapshots whose ID sequences are equal
// share it, so lookups by ID are O(1) without a per-keystroke rebuild.
type idIndex struct {
	uses, results idTable
}

// findIDProblems finds the ID findings of a store, its IDs gathered from
// the messages (an edit's store, whose lists are built only on demand).
func findIDProblems(st *messageStore) ([]idFinding, idIndex) {
	useIDs, resultIDs := make([]string, 0, st.nUses), make([]string, 0, st.nResults)
	st.eachStored(func(m *Message, _ int) {
		for _, u := range m.ToolUses {
			useIDs = append(useIDs, u.ID)
		}
		for _, r := range m.ToolResults {
			resultIDs = append(resultIDs, r.ID)
		}
	})
	return idProblems(st, func() []string { return useIDs }, func() []string { return resultIDs })
}

// listIDProblems finds the ID findings of a full parse's store and builds
// its lists of tool uses and results on the way: the IDs are read from
// the lists, each list and its table on a core of its own.
func listIDProblems(st *messageStore) ([]idFinding, idIndex) {
	return idProblems(st, func() []string { return idsOf(st.toolUses(), func(u *ToolUse) string { return u.ID }) },
		func() []string { return idsOf(st.toolResults(), func(r *ToolResult) string { return r.ID }) })
}

func idsOf[T any](nodes []*T, id func(*T) string) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = id(n)
	}
	return out
}

// idProblems indexes the IDs the two functions give and finds the
// duplicates and the orphan results. The two tables do not depend on each
// other; a large document builds them on two cores (22,000 IDs: 3.5 ms in
// one go, the serial end of Parse), then looks the results' IDs up among
// the uses' in two halves.
func idProblems(st *messageStore, useIDsOf, resultIDsOf func() []string) ([]idFinding, idIndex) {
	parallel := st.nUses+st.nResults >= parallelIDsMin && runtime.GOMAXPROCS(0) > 1
	var useIDs, resultIDs []string
	var ids idIndex
	var dupUses, dupResults, orphans []int
	both(parallel, func() { useIDs = useIDsOf(); ids.uses, dupUses = newIDTable(useIDs) },
		func() { resultIDs = resultIDsOf(); ids.results, dupResults = newIDTable(resultIDs) })
	half := len(resultIDs) / 2
	var orphansAfter []int
	both(parallel, func() { orphans = missingFrom(ids.uses, resultIDs[:half], 0) },
		func() { orphansAfter = missingFrom(ids.uses, resultIDs[half:], half) })
	orphans = append(orphans, orphansAfter...)

	out := make([]idFinding, 0, len(dupUses)+len(dupResults)+len(orphans))
	for _, i := range dupUses {
		out = append(out, idFinding{CodeDuplicateToolID, false, i})
	}
	// A result's findings in order: orphan before duplicate.
	for len(orphans) > 0 || len(dupResults) > 0 {
		if len(dupResults) == 0 || len(orphans) > 0 && orphans[0] <= dupResults[0] {
			out = append(out, idFinding{CodeOrphanResult, true, orphans[0]})
			orphans = orphans[1:]
		} else {
			out = append(out, idFinding{CodeDuplicateToolResult, true, dupResults[0]})
			dupResults = dupResults[1:]
		}
	}
	return out, ids
}

// parallelIDsMin is how many IDs make findIDProblems use two cores (a
// variable so that tests can lower it).
var parallelIDsMin = 4096

// both runs f and g, at once when parallel and the program allows it.
func both(parallel bool, f, g func()) {
	if !parallel || accel.Parallel == nil {
		f()
		g()
		return
	}
	accel.Parallel(g, f)
}

// missingFrom lists base+i for each ids[i] that known lacks.
func missingFrom(known idTable, ids []string, base int) []int {
	var out []int
	for i, id := range ids {
		if _, ok := known.index(id); !ok {
			out = append(out, base+i)
		}
	}
	return out
}

func (d *Document) idDiagnostics() []Diagnostic {
	return d.idDiagnosticsWhere(func(idFinding) bool { return true })
}

// idDiagnosticsWhere formats the findings that keep accepts.
func (d *Document) idDiagnosticsWhere(keep func(idFinding) bool) []Diagnostic {
	var out []Diagnostic
	for _, f := range d.idFindings {
		if !keep(f) {
			continue
		}
		if !f.result {
			u := d.store.toolUse(f.index)
			out = append(out, diag(u.IDSpan(), SeverityError, f.code, u.ID,
				"Duplicate tool use ID `%s`: an earlier tool use has it already", u.ID))
			continue
		}
		r := d.store.toolResult(f.index)
		if f.code == CodeDuplicateToolResult && d.answersLaterUse(r) {
			continue // the answer of a reused ID, right after its own use
		}
		if f.code == CodeOrphanResult {
			out = append(out, diag(r.IDSpan(), SeverityWarning, f.code, r.ID, "Tool result `%s` has no matching tool use", r.ID))
		} else {
			out = append(out, diag(r.IDSpan(), SeverityWarning, f.code, r.ID,
				"Second result for `%s`; only the first one counts", r.ID))
		}
	}
	return out
}

// answersLaterUse says whether a result that is not the first with its
// ID answers a later use of the ID in the Assistant message right before
// its own: that message has at least as many uses of the ID as this one
// has results with it up to r (how chatls answers a reused ID, SPEC §1).
func (d *Document) answersLaterUse(r *ToolResult) bool {
	if r.Message < 1 || r.Message >= d.MessageCount() || d.Message(r.Message-1).Role != "Assistant" {
		return false
	}
	results := 0
	for _, mr := range d.Message(r.Message).ToolResults {
		if mr.ID == r.ID {
			results++
		}
		if mr.HeaderSpan == r.HeaderSpan {
			break
		}
	}
	uses := 0
	for _, u := range d.Message(r.Message - 1).ToolUses {
		if u.ID == r.ID {
			uses++
		}
	}
	return uses >= results
}

// collectDiagnostics merges all findings into document order (stable):
// those before the messages, the messages' own (shifted where a chunk
// moved, without copying it), and the document-wide ones.
func collectDiagnostics(fm []Diagnostic, st *messageStore, global []Diagnostic) []Diagnostic {
	n := len(fm) + len(global)
	st.eachStored(func(m *Message, _ int) { n += len(m.findings()) })
	out := make([]Diagnostic, 0, n)
	out = append(out, fm...)
	st.eachStored(func(m *Message, delta int) {
		for _, dg := range m.findings() {
			dg.Span = dg.Span.Shift(delta)
			out = append(out, dg)
		}
	})
	out = append(out, global...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}
