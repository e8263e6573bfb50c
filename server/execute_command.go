package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
)

// commandArgs is the one argument object of every chatls command.
type commandArgs struct {
	URI   string `json:"uri"`
	ID    string `json:"id"`
	Scope string `json:"scope"`
	Rule  string `json:"rule"`
}

func (s *Server) executeCommand(ctx context.Context, raw *json.RawMessage, _ *snapshot) (any, error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	var args commandArgs
	if len(p.Arguments) > 0 {
		if err := json.Unmarshal(p.Arguments[0], &args); err != nil {
			return nil, invalidParams(fmt.Errorf("%s takes one argument object: %v", p.Command, err))
		}
	}
	if p.Command == "chatls.listTools" {
		return s.listTools(), nil
	}
	if p.Command == "chatls.advance" && args.URI == "" {
		// Pickers such as Helix's send commands without arguments.
		return s.advanceAll(ctx)
	}
	ds, doc, _, _ := s.current(args.URI)
	if ds == nil {
		return nil, invalidParams(fmt.Errorf("%s: the document %q is not open", p.Command, args.URI))
	}
	needID := func() error {
		if args.ID == "" {
			return invalidParams(fmt.Errorf("%s needs an id", p.Command))
		}
		if doc.ToolUse(args.ID) == nil {
			return invalidParams(fmt.Errorf("%s: no tool use with id %q in the document", p.Command, args.ID))
		}
		return nil
	}
	switch p.Command {
	case "chatls.advance":
		report := s.step(ctx, ds, true)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return report, nil
	case "chatls.run":
		if err := needID(); err != nil {
			return nil, err
		}
		return s.runOne(ds, args.ID)
	case "chatls.cancel":
		if err := needID(); err != nil {
			return nil, err
		}
		return map[string]any{"cancelled": s.cancelTool(args.ID)}, nil
	case "chatls.explain":
		if err := needID(); err != nil {
			return nil, err
		}
		v := s.decide(ds, doc, doc.ToolUse(args.ID), "")
		return map[string]any{"decision": v.Decision, "reason": v.Reason, "trace": v.Format(), "steps": v.Steps}, nil
	case "chatls.approve", "chatls.reject":
		if err := needID(); err != nil {
			return nil, err
		}
		to := chatdoc.StatusApproved
		if p.Command == "chatls.reject" {
			to = chatdoc.StatusRejected
		}
		// The click is the user's edit: it reaches the cycle as a didChange
		// like a typed change would.
		ok := s.editDocument(ds, "chatls: "+string(to), func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			return statusEdits(doc, map[string]bool{args.ID: true}, chatdoc.StatusPending, to)
		})
		return map[string]any{"applied": ok}, nil
	case "chatls.alwaysAllow":
		if err := needID(); err != nil {
			return nil, err
		}
		return s.alwaysAllow(ds, args)
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "unknown command: " + p.Command}
}

// runOne executes or resolves one block now (chatls.run). It never bypasses
// the gate: a pending block must be approved first.
func (s *Server) runOne(ds *docState, id string) (any, error) {
	_, doc, _, _ := s.current(ds.uri)
	r := doc.ToolResult(id)
	if r == nil {
		return nil, invalidParams(fmt.Errorf("%s has no placeholder yet: run chatls.advance first", id))
	}
	if !r.IsPlaceholder() {
		return nil, invalidParams(fmt.Errorf("%s already has a result", id))
	}
	s.mu.Lock()
	ds.touched[id] = true
	s.mu.Unlock()
	ds.cycleMu.Lock()
	did := s.resolveOnly(ds, id)
	ds.cycleMu.Unlock()
	if !did && r.Status == chatdoc.StatusPending {
		return nil, invalidParams(fmt.Errorf("%s is pending: approve it first (change status=pending to status=approved)", id))
	}
	return s.report(ds), nil
}

// alwaysAllow writes the rule to the workspace or user config and
// re-categorizes the pending calls it now covers.
func (s *Server) alwaysAllow(ds *docState, args commandArgs) (any, error) {
	if args.Rule == "" {
		return nil, invalidParams(fmt.Errorf("chatls.alwaysAllow needs a rule"))
	}
	var path string
	switch args.Scope {
	case "", "workspace":
		path = filepath.Join(s.workspaceRoot(ds.path), config.WorkspaceFile)
	case "user":
		s.settings.mu.Lock()
		path = s.settings.userPath
		s.settings.mu.Unlock()
	default:
		return nil, invalidParams(fmt.Errorf("scope must be \"workspace\" or \"user\", not %q", args.Scope))
	}
	if err := config.AddRule(path, args.Rule, "autoApprove"); err != nil {
		return nil, err
	}
	s.settings.reloadFile(path)
	s.onSettingsChanged()
	// Re-categorize: pending calls the policy now approves become approved and run.
	_, doc, _, _ := s.current(ds.uri)
	now := map[string]bool{}
	for _, r := range doc.ToolResults {
		if r.Status != chatdoc.StatusPending {
			continue
		}
		if u := doc.ToolUse(r.ID); u != nil && s.decide(ds, doc, u, "rule").Decision == approval.Approve {
			now[r.ID] = true
		}
	}
	if len(now) > 0 {
		s.editDocument(ds, "chatls: approved by the new rule", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			return statusEdits(doc, now, chatdoc.StatusPending, chatdoc.StatusApproved)
		})
		s.mu.Lock()
		for id := range now {
			ds.touched[id] = true
		}
		s.mu.Unlock()
		ds.wake()
	}
	return map[string]any{"file": path, "rule": args.Rule, "approved": len(now)}, nil
}

// listTools describes every tool with its schema and source.
func (s *Server) listTools() any {
	defs := s.registry.List()
	out := make([]map[string]any, 0, len(defs))
	for _, d := range defs {
		out = append(out, map[string]any{"name": d.Name, "description": d.Description, "source": d.Source, "schema": d.Schema, "annotations": d.Annotations})
	}
	return out
}

// phaseRank orders phases from "nothing left" to "most happened".
var phaseRank = map[string]int{"send": 0, "wait": 1, "execute": 2, "categorize": 3}

// advanceAll runs chatls.advance on every open document and sums the reports.
func (s *Server) advanceAll(ctx context.Context) (any, error) {
	s.mu.Lock()
	docs := make([]*docState, 0, len(s.docs))
	for _, ds := range s.docs {
		docs = append(docs, ds)
	}
	s.mu.Unlock()
	total := stepReport{Phase: "send", Ready: true}
	for _, ds := range docs {
		r := s.step(ctx, ds, true)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		total.Pending += r.Pending
		total.Running += r.Running
		total.Ready = total.Ready && r.Ready
		if phaseRank[r.Phase] > phaseRank[total.Phase] {
			total.Phase = r.Phase // the busiest document's phase wins
		}
	}
	if total.Phase == "send" {
		total.Message = "ready to send"
	}
	return total, nil
}
