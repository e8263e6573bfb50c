package session

import (
	"fmt"
	"path/filepath"
	"time"
	"weak"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/frontmatter"
	"github.com/chatls/chatls/surface"
	"github.com/chatls/chatls/tools"
)

// diagnosticsDelay debounces publishing while the user types.
const diagnosticsDelay = 60 * time.Millisecond

// codeSandbox marks the warning that bubblewrap cannot run.
const codeSandbox = "sandbox-unavailable"

// fileRefs checks `@./file` references; stats are shared by all documents
// and reused for two seconds, so typing does not stat every reference again.
var fileRefs = &surface.FileRefChecker{TTL: 2 * time.Second}

// scheduleDiagnostics tells the editor, debounced, that the document's
// diagnostics and status are due.
func (s *Session) scheduleDiagnostics(ds *Doc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds.closed {
		return
	}
	if ds.diagTimer != nil {
		ds.diagTimer.Stop()
	}
	ds.diagTimer = time.AfterFunc(diagnosticsDelay, func() {
		if s.open(ds) {
			s.editor.Changed(ds)
		}
	})
}

// Diagnostics returns the diagnostics of a snapshot, computing them
// once: publishing and code actions on the same snapshot share the work,
// which is linear in the document. fresh recomputes them (session state such
// as running tools changes without a new snapshot).
func (s *Session) Diagnostics(ds *Doc, doc *chatdoc.Document, fresh bool) []chatdoc.Diagnostic {
	s.mu.Lock()
	if ds.diagDoc.Value() == doc && !fresh {
		diags := ds.diagList
		s.mu.Unlock()
		return diags
	}
	s.mu.Unlock()
	diags := s.documentDiagnostics(ds, doc)
	s.mu.Lock()
	ds.diagDoc, ds.diagList = weak.Make(doc), diags
	s.mu.Unlock()
	return diags
}

// documentDiagnostics gathers parse, tool and session diagnostics.
func (s *Session) documentDiagnostics(ds *Doc, doc *chatdoc.Document) []chatdoc.Diagnostic {
	diags := frontmatter.Diagnostics(doc)
	var nameAt map[chatdoc.Span]string // tool-use name spans, for unknown tools
	onTarget := tools.OnTarget{Registry: s.registry, Target: s.targetFor(ds, doc)}
	for _, d := range ds.toolDiags.Diagnostics(doc, onTarget, onTarget.Stamp()) {
		if d.Code == surface.CodeUnknownTool {
			if nameAt == nil {
				nameAt = map[chatdoc.Span]string{}
				for _, u := range doc.ToolUses() {
					nameAt[u.NameSpan()] = u.Name
				}
			}
			if name, ok := nameAt[d.Span]; ok && s.toolSet.MayProvide(name) {
				// It may come from a tool source that is still loading: say
				// so there, and only there (documents using built-ins alone
				// wait for nothing).
				d.Severity, d.Code, d.Message = chatdoc.SeverityInformation, cycle.CodeWaitingTools, cycle.MsgWaitingTools
			}
		}
		diags = append(diags, d)
	}
	if ds.path != "" {
		diags = append(diags, fileRefs.Diagnostics(doc, filepath.Dir(ds.path))...)
	}
	for name, err := range s.registry.SourceErrors() {
		diags = append(diags, chatdoc.Diagnostic{Severity: chatdoc.SeverityWarning, Code: "tool-source-failed", Message: fmt.Sprintf("tool source %s failed: %v", name, err)})
	}
	return append(diags, s.sessionDiagnostics(ds, doc)...)
}

// sessionDiagnostics describe the cycle's state of each block
// (cycle.Diagnostics). A pending bash call starts a tool supervisor ahead
// of the approval, so the approved call does not wait for one (~5 ms).
func (s *Session) sessionDiagnostics(ds *Doc, doc *chatdoc.Document) []chatdoc.Diagnostic {
	eff := s.settings.effectiveFor(ds.path)
	target := s.targetFor(ds, doc)
	diags := ds.cycleParts.Diagnostics(doc, s.ledgerCopy(ds), s.facts(ds, doc, ""), func(u *chatdoc.ToolUse) string { return s.preview(target, u, eff.InlayHintsMaxLength) }, time.Now(), eff.Keys)
	for _, d := range diags {
		if d.Code == cycle.CodePending {
			if u := doc.ToolUse(d.ToolID); u != nil && u.Name == "bash" {
				tools.Prewarm()
				break
			}
		}
	}
	s.mu.Lock()
	problem := ds.sendProblem
	s.mu.Unlock()
	window := s.contextDiagnostic(ds, doc, eff.Context)
	if len(window) > 0 && window[0].Message == problem {
		problem = "" // a send refused for its size: the context warning says it, with its actions
	}
	diags = append(diags, sendProblemDiagnostic(doc, problem)...)
	diags = append(diags, s.agentHistoryDiagnostics(ds, doc)...)
	return append(diags, window...)
}

// preview is the one-line description of a call (SPEC §3 formats), naming
// the target it runs on (`bash@build: $ make test`, SPEC §8).
func (s *Session) preview(t *tools.TargetEnv, u *chatdoc.ToolUse, maxLen int) string {
	return s.previewCall(t, u.Name, u.ToolInput(), maxLen)
}

func (s *Session) previewCall(t *tools.TargetEnv, name string, input map[string]any, maxLen int) string {
	def := tools.Definition{Name: name}
	if tool, ok := (tools.OnTarget{Registry: s.registry, Target: t}).Lookup(name); ok {
		def = tool.Definition()
	}
	return tools.PreviewOn(def, tools.RunsOn(t, name, def.Source == "builtin"), input, maxLen)
}
