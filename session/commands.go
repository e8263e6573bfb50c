package session

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/internal/fileuri"
	"github.com/chatls/chatls/tools/custom"
)

// BadRequestError is a command the session cannot carry out as asked (a
// call without a placeholder, a malformed rule): what the user reads.
type BadRequestError struct{ Reason string }

func (e *BadRequestError) Error() string { return e.Reason }

func badRequest(err error) error { return &BadRequestError{Reason: err.Error()} }

// SetStatus approves or rejects a pending block (chatls.approve,
// chatls.reject, for code lenses). The click is the user's edit: it reaches
// the cycle as a didChange like a typed change would.
func (s *Session) SetStatus(ds *Doc, id string, to chatdoc.Status) bool {
	ok := s.editDocument(ds, "chatls: "+string(to), func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		return cycle.StatusEdits(doc, map[string]bool{id: true}, chatdoc.StatusPending, to)
	})
	return ok
}

// RunOne executes or resolves one block now (chatls.run). It never bypasses
// the gate: a pending block must be approved first.
func (s *Session) RunOne(ds *Doc, id string) (any, error) {
	doc := s.latest(ds)
	r := doc.ToolResult(id)
	if r == nil {
		return nil, badRequest(fmt.Errorf("%s has no placeholder yet: %s first", id, s.keyNames(ds).Do(cycle.KeyAdvance)))
	}
	if !r.IsPlaceholder() {
		return nil, badRequest(fmt.Errorf("%s already has a result", id))
	}
	s.mu.Lock()
	ds.ledger.Touch(id)
	s.mu.Unlock()
	ds.cycleMu.Lock()
	did := s.resolveOnly(ds, id)
	ds.cycleMu.Unlock()
	if !did && r.Status == chatdoc.StatusPending {
		return nil, badRequest(fmt.Errorf("%s waits for your approval: %s first", id, s.keyNames(ds).Do(cycle.KeyApprove)))
	}
	doc, l := s.view(ds)
	return cycle.Count(doc, l), nil
}

// AlwaysAllow writes the rule to the workspace or user config and
// re-categorizes the pending calls it now covers. A rule in the .chatls.toml
// of an untrusted workspace would have no effect: it goes to the user config
// instead, and the user is told.
func (s *Session) AlwaysAllow(ds *Doc, rule, scope string) (map[string]any, error) {
	if rule == "" {
		return nil, badRequest(fmt.Errorf("chatls.alwaysAllow needs a rule"))
	}
	if _, err := approval.NewEngine(approval.Sources{User: config.Settings{Tools: config.Tools{AutoApprove: []string{rule}}}, UserFile: "rule"}, nil); err != nil {
		return nil, badRequest(fmt.Errorf("chatls.alwaysAllow: %v", err))
	}
	root := s.workspaceRoot(ds.path)
	userPath := s.settings.store.UserPath()
	path := ""
	switch scope {
	case "", "workspace":
		scope, path = "workspace", filepath.Join(root, config.WorkspaceFile)
		if !s.settings.store.WorkspaceApplies(root) {
			scope, path = "user", userPath
		}
	case "user":
		path = userPath
	default:
		return nil, badRequest(fmt.Errorf("scope must be \"workspace\" or \"user\", not %q", scope))
	}
	if err := config.AddRule(path, rule, "autoApprove"); err != nil {
		return nil, err
	}
	s.settings.store.ReloadFile(path)
	s.onSettingsChanged()
	approved := 0
	// Re-categorize: pending calls the policy now approves become approved and run.
	doc := s.latest(ds)
	if now := cycle.NowApproved(doc, s.facts(ds, doc, "rule")); len(now) > 0 {
		s.editDocument(ds, "chatls: approved by the new rule", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			return cycle.StatusEdits(doc, now, chatdoc.StatusPending, chatdoc.StatusApproved)
		})
		s.mu.Lock()
		for id := range now {
			ds.ledger.Touch(id)
		}
		s.mu.Unlock()
		ds.wake()
		approved = len(now)
	}
	s.showMessage(MessageInfo, alwaysAllowMessage(rule, path, root, scope == "user" && !s.settings.store.WorkspaceApplies(root), approved))
	return map[string]any{"file": path, "scope": scope, "rule": rule, "approved": approved}, nil
}

// alwaysAllowMessage says where the rule went and, when the workspace's
// file could not take it, why — trust explained in one sentence with the
// setting that grants it.
func alwaysAllowMessage(rule, path, root string, untrusted bool, approved int) string {
	msg := fmt.Sprintf("chatls: added %s to tools.autoApprove in %s", rule, path)
	if untrusted {
		msg += fmt.Sprintf(" (it applies in every workspace). Rules in %s/%s count only once you trust that folder: "+
			"add it to trust.workspaces in %s, e.g. trust.workspaces = [%q]", root, config.WorkspaceFile, path, root+"/**")
	}
	switch approved {
	case 0:
	case 1:
		msg += "; 1 waiting call is now approved"
	default:
		msg += fmt.Sprintf("; %d waiting calls are now approved", approved)
	}
	return msg
}

// ListTools describes every tool with its schema and source, once the tool
// sources are ready (or tools.defaultTimeout passed). With a uri, the
// timeout is that document's and tools from the .chatls.toml of another
// workspace are left out.
func (s *Session) ListTools(ctx context.Context, uri string) ([]custom.Description, error) {
	eff, root := s.settings.effective(), ""
	if uri != "" {
		path := fileuri.ToPath(uri)
		eff, root = s.settings.effectiveFor(path), s.workspaceRoot(path)
	}
	return s.tools.Describe(ctx, time.Duration(eff.DefaultTimeout)*time.Second, root)
}

// AdvanceAll runs chatls.advance on every open document and sums the reports.
func (s *Session) AdvanceAll(ctx context.Context) (cycle.Report, error) {
	docs := s.openDocs()
	var reports []cycle.Report
	for _, ds := range docs {
		r := s.step(ctx, ds, true)
		if ctx.Err() != nil {
			return cycle.Report{}, ctx.Err()
		}
		reports = append(reports, r)
	}
	return cycle.Sum(reports), nil
}
