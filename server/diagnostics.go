package server

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/server/surface"
	"github.com/chatls/chatls/tools"
)

// diagnosticsDelay debounces publishing while the user types.
const diagnosticsDelay = 60 * time.Millisecond

// Session diagnostic texts and codes (parse-level ones come from chatdoc).
const (
	msgApprovedBefore = "approved before this session; approve again to run"
	msgRevoked        = "the tool's input changed after approval; approve again to run"
	msgWaitingTools   = "Waiting for tool definitions to load..."
	msgAlreadyRan     = "this tool already ran; chatls.advance writes its result"
	codePending       = "pending-approval"
	codeApprovedOld   = "approved-before-session"
	codeRevoked       = "approval-revoked"
	codeUnanswered    = "unanswered-tool-use"
	codeRunning       = "tool-running"
	codeWaitingTools  = "waiting-for-tools"
	codeAlreadyRan    = "already-ran"
	codeSandbox       = "sandbox-unavailable"
)

// fileRefs checks `@./file` references; stats are shared by all documents
// and reused for two seconds, so typing does not stat every reference again.
var fileRefs = &surface.FileRefChecker{TTL: 2 * time.Second}

func (s *Server) scheduleDiagnostics(ds *docState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds.closed {
		return
	}
	if ds.diagTimer != nil {
		ds.diagTimer.Stop()
	}
	ds.diagTimer = time.AfterFunc(diagnosticsDelay, func() { s.publishDiagnostics(ds) })
}

// wireDiagnostic is an LSP Diagnostic; marshalled ourselves so the list is
// never null and codes stay strings.
type wireDiagnostic struct {
	Range    lspRange `json:"range"`
	Severity int      `json:"severity"`
	Code     string   `json:"code,omitempty"`
	Source   string   `json:"source"`
	Message  string   `json:"message"`
}

func (s *Server) publishDiagnostics(ds *docState) {
	s.mu.Lock()
	if ds.closed {
		s.mu.Unlock()
		return
	}
	doc, version, enc := ds.snap, ds.version, s.enc
	s.mu.Unlock()
	diags := s.cachedDiagnostics(ds, doc, true)
	out := make([]wireDiagnostic, 0, len(diags))
	for _, d := range diags {
		out = append(out, wireDiagnostic{
			Range:    toLSPRange(doc.Range(d.Span, enc)),
			Severity: int(d.Severity),
			Code:     d.Code,
			Source:   "chatls",
			Message:  d.Message,
		})
	}
	s.notify("textDocument/publishDiagnostics", map[string]any{"uri": ds.uri, "version": version, "diagnostics": out})
}

// cachedDiagnostics returns the diagnostics of a snapshot, computing them
// once: publishing and code actions on the same snapshot share the work,
// which is linear in the document. fresh recomputes them (session state such
// as running tools changes without a new snapshot).
func (s *Server) cachedDiagnostics(ds *docState, doc *chatdoc.Document, fresh bool) []chatdoc.Diagnostic {
	ds.diagMu.Lock()
	if ds.diagDoc == doc && !fresh {
		diags := ds.diagList
		ds.diagMu.Unlock()
		return diags
	}
	ds.diagMu.Unlock()
	diags := s.documentDiagnostics(ds, doc)
	ds.diagMu.Lock()
	ds.diagDoc, ds.diagList = doc, diags
	ds.diagMu.Unlock()
	return diags
}

// documentDiagnostics gathers parse, tool and session diagnostics.
func (s *Server) documentDiagnostics(ds *docState, doc *chatdoc.Document) []chatdoc.Diagnostic {
	diags := append([]chatdoc.Diagnostic(nil), doc.Diagnostics...)
	var nameAt map[chatdoc.Span]string // tool-use name spans, for unknown tools
	for _, d := range surface.ToolDiagnostics(doc, s.registry) {
		if d.Code == surface.CodeUnknownTool {
			if nameAt == nil {
				nameAt = map[chatdoc.Span]string{}
				for _, u := range doc.ToolUses {
					nameAt[u.NameSpan] = u.Name
				}
			}
			if name, ok := nameAt[d.Span]; ok && s.toolSet.MayProvide(name) {
				// It may come from a tool source that is still loading: say
				// so there, and only there (documents using built-ins alone
				// wait for nothing).
				d.Severity, d.Code, d.Message = chatdoc.SeverityInformation, codeWaitingTools, msgWaitingTools
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

// sessionDiagnostics describe the cycle's state of each block: pending
// approvals (a status line for editors without progress UI), approvals that
// don't count, running tools and unanswered tool uses.
func (s *Server) sessionDiagnostics(ds *docState, doc *chatdoc.Document) []chatdoc.Diagnostic {
	var out []chatdoc.Diagnostic
	maxLen := s.settings.effectiveFor(ds.path).InlayHintsMaxLength
	for _, u := range doc.ToolUses {
		if doc.ToolResult(u.ID) == nil && u.Valid() {
			out = append(out, chatdoc.Diagnostic{Span: u.HeaderSpan, Severity: chatdoc.SeverityHint, Code: codeUnanswered, ToolID: u.ID,
				Message: "tool use without a result: run chatls.advance (or the \"Insert approval placeholders\" action) to categorize it"})
		}
	}
	for _, r := range doc.ToolResults {
		if !r.IsPlaceholder() {
			continue
		}
		u := doc.ToolUse(r.ID)
		if u == nil {
			continue
		}
		s.mu.Lock()
		rs := ds.running[r.ID]
		writing := ds.writing[r.ID]
		h, approved := ds.userApproved[r.ID]
		revoked := ds.revoked[r.ID]
		s.mu.Unlock()
		empty := strings.TrimSpace(r.Content) == ""
		waiting := empty && (r.Status == chatdoc.StatusPending || r.Status == chatdoc.StatusApproved)
		switch {
		case rs == nil && !writing && waiting && s.alreadyRan(ds, r.ID):
			// Approving it again would not run it: the journal says it ran.
			out = append(out, chatdoc.Diagnostic{Span: r.HeaderSpan, Severity: chatdoc.SeverityInformation, Code: codeAlreadyRan, ToolID: r.ID, Message: msgAlreadyRan})
		case rs != nil:
			out = append(out, chatdoc.Diagnostic{Span: r.HeaderSpan, Severity: chatdoc.SeverityInformation, Code: codeRunning, ToolID: r.ID,
				Message: fmt.Sprintf("running %s (%s)", u.Name, time.Since(rs.started).Round(time.Second))})
		case r.Status == chatdoc.StatusPending && empty:
			out = append(out, chatdoc.Diagnostic{Span: r.HeaderSpan, Severity: chatdoc.SeverityInformation, Code: codePending, ToolID: r.ID,
				Message: "approval pending: " + s.preview(u, maxLen)})
			if u.Name == "bash" {
				// An approval may come any moment: have a tool supervisor
				// ready so the call does not start one (~5 ms).
				tools.Prewarm()
			}
		case r.Status == chatdoc.StatusApproved && empty && revoked:
			out = append(out, chatdoc.Diagnostic{Span: r.HeaderSpan, Severity: chatdoc.SeverityWarning, Code: codeRevoked, ToolID: r.ID, Message: msgRevoked})
		case r.Status == chatdoc.StatusApproved && empty && !(approved && h == inputHash(u)):
			if v := s.decide(ds, doc, u, ""); v.Decision != approval.Approve {
				out = append(out, chatdoc.Diagnostic{Span: r.HeaderSpan, Severity: chatdoc.SeverityWarning, Code: codeApprovedOld, ToolID: r.ID, Message: msgApprovedBefore})
			}
		}
	}
	return out
}

// preview is the one-line description of a call (SPEC §3 formats).
func (s *Server) preview(u *chatdoc.ToolUse, maxLen int) string {
	def, ok := s.registry.Lookup(u.Name)
	if !ok {
		return tools.Preview(tools.Definition{Name: u.Name}, u.Input, maxLen)
	}
	return tools.Preview(def.Definition(), u.Input, maxLen)
}

// alreadyRan says whether the execution journal knows the tool finished or
// was interrupted: it never runs again, advance writes what is recorded.
func (s *Server) alreadyRan(ds *docState, id string) bool {
	switch s.journalState(ds, id) {
	case journal.Finished, journal.Interrupted:
		return true
	}
	return false
}
