package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/server/surface"
	"github.com/chatls/chatls/tools"
)

// inlayHints shows a preview of each call inside its empty placeholder, at
// the end of the fence opener line (SPEC §3); a running call shows its
// elapsed time. While custom tool sources load, calls of a tool not known
// yet say so (on the placeholder, or on the tool-use header when there is
// none yet). Only hints whose position lies in the requested range are
// returned: clients ask for the visible lines.
func (s *Server) inlayHints(ctx context.Context, p lspext.InlayHintParams, snap *snapshot) ([]lspext.InlayHint, error) {
	doc := snap.doc
	span := spanOf(doc, p.Range, snap.enc)
	inRange := func(off int) bool { return span.Start <= off && off <= span.End }
	ds := s.docState(snap.uri)
	maxLen := s.settings.effectiveFor(uriToPath(snap.uri)).InlayHintsMaxLength
	hints := []lspext.InlayHint{}
	add := func(off int, label, tooltip string) {
		hints = append(hints, lspext.InlayHint{
			Position:    surface.LSPPosition(doc.Lines.Position(off, snap.enc)),
			Label:       label,
			PaddingLeft: true,
			Tooltip:     tooltip,
		})
	}
	// loading: the tool is not known yet but may come from a source that
	// is still loading.
	loading := s.toolSet.MayProvide
	// Where bubblewrap cannot start, a bash call runs (or, with
	// sandbox.enabled = true, fails) without the sandbox: each one says so.
	unsandboxed := s.sandboxProblemFor(uriToPath(snap.uri)) != ""
	var target *tools.TargetEnv
	if ds != nil {
		target = s.targetFor(ds, doc)
	}
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
			if ds != nil {
				s.mu.Lock()
				if run, ok := ds.ledger.Run(r.ID); ok && run.Phase != cycle.Writing {
					label = fmt.Sprintf("running %s · %s", time.Since(run.Started).Round(time.Second), label)
				}
				s.mu.Unlock()
			}
			add(r.Fence.OpenerSpan().End, label, "chatls: "+string(r.Status))
		}
	}
	return hints, nil
}
