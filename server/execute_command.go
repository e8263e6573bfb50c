package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/tools/custom"
)

// commandArgs is the one argument object of every chatls command.
type commandArgs struct {
	URI   string `json:"uri"`
	ID    string `json:"id"`
	Scope string `json:"scope"`
	Rule  string `json:"rule"`
	// Format "markdown" makes chatls.listTools answer {"markdown": DOC},
	// and tells chatls.explain the client shows the answer's markdown
	// itself (no message with the trace).
	Format string `json:"format"`
	// Path names the document instead of URI, as an editor shows it:
	// absolute, "~/…", or relative to the editor's directory (Helix 25.07's
	// %{buffer_name}); see openDocByPath.
	Path string `json:"path"`
}

// executeCommandParams is workspace/executeCommand's params; every chatls
// command takes one argument object.
type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// commandCall is one command on an open document, with its arguments.
type commandCall struct {
	name string
	ds   *docState
	doc  *chatdoc.Document // the newest snapshot when the command came
	args commandArgs
}

// command is the implementation of one chatls command; needsID ones get an
// existing tool use's ID checked first.
type command struct {
	needsID bool
	run     func(s *Server, ctx context.Context, c commandCall) (any, error)
}

// commands are the chatls commands on a document (SPEC §3); chatls.listTools
// and chatls.advance without a document are executeCommand's own.
func commands() map[string]command {
	return map[string]command{
		"chatls.advance": {run: func(s *Server, ctx context.Context, c commandCall) (any, error) {
			report := s.step(ctx, c.ds, true)
			return report, ctx.Err()
		}},
		"chatls.run": {needsID: true, run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			return s.runOne(c.ds, c.args.ID)
		}},
		"chatls.cancel": {run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			if c.args.ID == "" {
				// No id: the request in flight (SPEC §7).
				return map[string]any{"cancelled": s.cancelSend(c.ds)}, nil
			}
			if c.doc.ToolUse(c.args.ID) == nil {
				return nil, invalidParams(fmt.Errorf("chatls.cancel: no tool use with id %q in the document", c.args.ID))
			}
			return map[string]any{"cancelled": s.cancelTool(c.ds, c.args.ID)}, nil
		}},
		"chatls.send": {run: func(s *Server, ctx context.Context, c commandCall) (any, error) {
			if cut, err := s.sendAfterCut(ctx, c.ds); cut {
				return nil, err
			}
			if err := s.startSend(ctx, c.ds, true); err != nil {
				return nil, err
			}
			return map[string]any{"sending": true}, nil
		}},
		"chatls.status": {run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			return s.status(c.ds), nil
		}},
		"chatls.usage": {run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			return s.usageTotals(c.ds)
		}},
		"chatls.explain":     {needsID: true, run: (*Server).explain},
		"chatls.approve":     {needsID: true, run: (*Server).setStatusCommand},
		"chatls.reject":      {needsID: true, run: (*Server).setStatusCommand},
		"chatls.alwaysAllow": {needsID: true, run: func(s *Server, _ context.Context, c commandCall) (any, error) { return s.alwaysAllow(c.ds, c.args) }},
	}
}

func (s *Server) executeCommand(ctx context.Context, p executeCommandParams) (any, error) {
	var args commandArgs
	if len(p.Arguments) > 0 {
		if err := json.Unmarshal(p.Arguments[0], &args); err != nil {
			return nil, invalidParams(fmt.Errorf("%s takes one argument object: %v", p.Command, err))
		}
	}
	if args.URI == "" && args.Path != "" {
		uri, err := s.openDocByPath(args.Path)
		if err != nil {
			return nil, invalidParams(fmt.Errorf("%s: %v", p.Command, err))
		}
		args.URI = uri
	}
	switch {
	case p.Command == "chatls.listTools":
		list, err := s.listTools(ctx, args.URI)
		if err != nil || args.Format != "markdown" {
			return list, err
		}
		return map[string]any{"markdown": custom.Markdown(list)}, nil
	case p.Command == "chatls.advance" && args.URI == "":
		// Pickers such as Helix's send commands without arguments.
		return s.advanceAll(ctx)
	}
	cmd, ok := s.commands[p.Command]
	if !ok {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "unknown command: " + p.Command}
	}
	ds := s.docState(args.URI)
	if ds == nil {
		return nil, invalidParams(fmt.Errorf("%s: the document %q is not open", p.Command, args.URI))
	}
	c := commandCall{name: p.Command, ds: ds, doc: s.latest(ds), args: args}
	if cmd.needsID && args.ID == "" {
		return nil, invalidParams(fmt.Errorf("%s needs an id", p.Command))
	}
	if cmd.needsID && c.doc.ToolUse(args.ID) == nil {
		return nil, invalidParams(fmt.Errorf("%s: no tool use with id %q in the document", p.Command, args.ID))
	}
	return cmd.run(s, ctx, c)
}

// explain is the decision trace of a call (chatls.explain). Its document is
// also shown as a message — clients without a plugin, and a clicked Explain
// lens, drop the command's result — unless the client shows the markdown
// itself (format "markdown"). Either way the user reads the same text.
func (s *Server) explain(_ context.Context, c commandCall) (any, error) {
	u := c.doc.ToolUse(c.args.ID)
	v := s.decide(c.ds, c.doc, u, "")
	md := v.Markdown(u.Name, u.ID, u.RawInput)
	if c.args.Format != "markdown" {
		s.showMessage(lspext.MessageInfo, md)
	}
	return map[string]any{"decision": v.Decision, "reason": v.Reason, "trace": v.Format(), "steps": v.Steps, "markdown": md}, nil
}

// setStatusCommand approves or rejects a pending block (chatls.approve,
// chatls.reject, for code lenses). The click is the user's edit: it reaches
// the cycle as a didChange like a typed change would.
func (s *Server) setStatusCommand(_ context.Context, c commandCall) (any, error) {
	to := chatdoc.StatusApproved
	if c.name == "chatls.reject" {
		to = chatdoc.StatusRejected
	}
	ok := s.editDocument(c.ds, "chatls: "+string(to), func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		return cycle.StatusEdits(doc, map[string]bool{c.args.ID: true}, chatdoc.StatusPending, to)
	})
	return map[string]any{"applied": ok}, nil
}

// runOne executes or resolves one block now (chatls.run). It never bypasses
// the gate: a pending block must be approved first.
func (s *Server) runOne(ds *docState, id string) (any, error) {
	doc := s.latest(ds)
	r := doc.ToolResult(id)
	if r == nil {
		return nil, invalidParams(fmt.Errorf("%s has no placeholder yet: %s first", id, s.keyNames(ds).Do(cycle.KeyAdvance)))
	}
	if !r.IsPlaceholder() {
		return nil, invalidParams(fmt.Errorf("%s already has a result", id))
	}
	s.mu.Lock()
	ds.ledger.Touch(id)
	s.mu.Unlock()
	ds.cycleMu.Lock()
	did := s.resolveOnly(ds, id)
	ds.cycleMu.Unlock()
	if !did && r.Status == chatdoc.StatusPending {
		return nil, invalidParams(fmt.Errorf("%s waits for your approval: %s first", id, s.keyNames(ds).Do(cycle.KeyApprove)))
	}
	doc, l := s.view(ds)
	return cycle.Count(doc, l), nil
}

// alwaysAllow writes the rule to the workspace or user config and
// re-categorizes the pending calls it now covers. A rule in the .chatls.toml
// of an untrusted workspace would have no effect: it goes to the user config
// instead, and the user is told.
func (s *Server) alwaysAllow(ds *docState, args commandArgs) (any, error) {
	if args.Rule == "" {
		return nil, invalidParams(fmt.Errorf("chatls.alwaysAllow needs a rule"))
	}
	if _, err := approval.NewEngine(approval.Sources{User: config.Settings{Tools: config.Tools{AutoApprove: []string{args.Rule}}}, UserFile: "rule"}, nil); err != nil {
		return nil, invalidParams(fmt.Errorf("chatls.alwaysAllow: %v", err))
	}
	root := s.workspaceRoot(ds.path)
	userPath := s.settings.store.UserPath()
	scope, path := args.Scope, ""
	switch scope {
	case "", "workspace":
		scope, path = "workspace", filepath.Join(root, config.WorkspaceFile)
		if !s.settings.store.WorkspaceApplies(root) {
			scope, path = "user", userPath
		}
	case "user":
		path = userPath
	default:
		return nil, invalidParams(fmt.Errorf("scope must be \"workspace\" or \"user\", not %q", args.Scope))
	}
	if err := config.AddRule(path, args.Rule, "autoApprove"); err != nil {
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
	s.showMessage(lspext.MessageInfo, alwaysAllowMessage(args.Rule, path, root, scope == "user" && !s.settings.store.WorkspaceApplies(root), approved))
	return map[string]any{"file": path, "scope": scope, "rule": args.Rule, "approved": approved}, nil
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

// listTools describes every tool with its schema and source, once the tool
// sources are ready (or tools.defaultTimeout passed). With a uri, the
// timeout is that document's and tools from the .chatls.toml of another
// workspace are left out.
func (s *Server) listTools(ctx context.Context, uri string) ([]custom.Description, error) {
	eff, root := s.settings.effective(), ""
	if uri != "" {
		path := uriToPath(uri)
		eff, root = s.settings.effectiveFor(path), s.workspaceRoot(path)
	}
	return s.tools.Describe(ctx, time.Duration(eff.DefaultTimeout)*time.Second, root)
}

// advanceAll runs chatls.advance on every open document and sums the reports.
func (s *Server) advanceAll(ctx context.Context) (any, error) {
	docs := s.openDocs()
	var reports []cycle.Report
	for _, ds := range docs {
		r := s.step(ctx, ds, true)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reports = append(reports, r)
	}
	return cycle.Sum(reports), nil
}
