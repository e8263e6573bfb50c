package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/tools"
)

// Hint is a short text shown at an offset of the document (LSP: an inlay
// hint), with a longer tooltip.
type Hint struct {
	At             int
	Label, Tooltip string
}

// Hints shows a preview of each call inside its empty placeholder, at the
// end of the fence opener line (SPEC §3); a running call shows its elapsed
// time. While custom tool sources load, calls of a tool not known yet say
// so (on the placeholder, or on the tool-use header when there is none
// yet). Only hints whose offset lies in span are returned: clients ask for
// the visible lines.
func (s *Session) Hints(ds *Doc, doc *chatdoc.Document, span chatdoc.Span) []Hint {
	maxLen := s.settings.effectiveFor(ds.path).InlayHintsMaxLength
	inRange := func(off int) bool { return span.Start <= off && off <= span.End }
	hints := []Hint{}
	add := func(off int, label, tooltip string) {
		hints = append(hints, Hint{At: off, Label: label, Tooltip: tooltip})
	}
	// loading: the tool is not known yet but may come from a source that
	// is still loading.
	loading := s.toolSet.MayProvide
	// Where bubblewrap cannot start, a bash call runs (or, with
	// sandbox.enabled = true, fails) without the sandbox: each one says so.
	unsandboxed := s.sandboxProblemFor(ds.path) != ""
	target := s.targetFor(ds, doc)
	for _, m := range cycle.MessagesIn(doc, span) {
		for _, u := range m.ToolUses {
			if inRange(u.HeaderSpan.End) && doc.ToolResult(u.ID) == nil && loading(u.Name) {
				add(u.HeaderSpan.End, cycle.MsgWaitingTools, "chatls: the tool "+u.Name+" may come from a tool source that is still loading")
			}
		}
		for _, r := range m.ToolResults {
			if r.Fence == nil || !inRange(r.Fence.OpenerSpan().End) {
				continue
			}
			if !r.IsPlaceholder() {
				if path := tools.FullOutputPath(r.Content); path != "" {
					add(r.Fence.OpenerSpan().End, "truncated · full output: "+path, "")
				}
				continue
			}
			if strings.TrimSpace(r.Content) != "" {
				continue
			}
			u := doc.ToolUse(r.ID)
			if u == nil {
				continue
			}
			label := s.preview(target, u, maxLen)
			if u.Name == "bash" && unsandboxed {
				label = "unsandboxed · " + label
			}
			if loading(u.Name) {
				label = cycle.MsgWaitingTools
			}
			s.mu.Lock()
			if run, ok := ds.ledger.Run(r.ID); ok && run.Phase != cycle.Writing {
				label = fmt.Sprintf("running %s · %s", time.Since(run.Started).Round(time.Second), label)
			}
			s.mu.Unlock()
			add(r.Fence.OpenerSpan().End, label, "chatls: "+string(r.Status))
		}
	}
	return hints
}
