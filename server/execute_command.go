package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/session"
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
	// Message, Conversation and Overwrite are the rewind commands' (SPEC
	// §10): the message the conversation is cut before or branched at,
	// whether the later messages go too, whether conflicts are restored.
	Message      *int `json:"message"`
	Conversation bool `json:"conversation"`
	Overwrite    bool `json:"overwrite"`
	// Option is chatls.agentOption's: the ID of the option the agent
	// offered.
	Option string `json:"option"`
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
	ds   *session.Doc
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
			report := s.sess.Advance(ctx, c.ds)
			return report, ctx.Err()
		}},
		"chatls.run": {needsID: true, run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			return s.sess.RunOne(c.ds, c.args.ID)
		}},
		"chatls.cancel": {run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			if c.args.ID == "" {
				// No id: the request in flight (SPEC §7).
				return map[string]any{"cancelled": s.sess.CancelSend(c.ds)}, nil
			}
			if c.doc.ToolUse(c.args.ID) == nil {
				return nil, invalidParams(fmt.Errorf("chatls.cancel: no tool use with id %q in the document", c.args.ID))
			}
			return map[string]any{"cancelled": s.sess.CancelTool(c.ds, c.args.ID)}, nil
		}},
		"chatls.compact": {run: func(s *Server, ctx context.Context, c commandCall) (any, error) {
			done, err := s.sess.Compact(ctx, c.ds)
			if err != nil {
				return nil, err
			}
			return map[string]any{"archive": done.Archive, "moved": done.Moved}, nil
		}},
		"chatls.trim": {run: func(s *Server, ctx context.Context, c commandCall) (any, error) {
			done, err := s.sess.Trim(ctx, c.ds)
			if err != nil {
				return nil, err
			}
			return map[string]any{"archive": done.Archive, "trimmed": done.Trimmed, "saved": done.Saved}, nil
		}},
		session.CommandRewind: {needsID: true, run: func(s *Server, ctx context.Context, c commandCall) (any, error) {
			msg := -1
			if c.args.Message != nil {
				msg = *c.args.Message
			}
			done, err := s.sess.Rewind(ctx, c.ds, c.args.ID, msg, c.args.Conversation, c.args.Overwrite)
			if err != nil {
				return nil, err
			}
			return rewoundResult(done), nil
		}},
		session.CommandUndoRewind: {run: func(s *Server, ctx context.Context, c commandCall) (any, error) {
			done, err := s.sess.UndoRewind(ctx, c.ds, c.args.Overwrite)
			if err != nil {
				return nil, err
			}
			return rewoundResult(done), nil
		}},
		session.CommandBranch: {run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			if c.args.Message == nil {
				return nil, invalidParams(fmt.Errorf("chatls.branch needs a message index"))
			}
			file, err := s.sess.Branch(c.ds, *c.args.Message)
			if err != nil {
				return nil, err
			}
			return map[string]any{"file": file}, nil
		}},
		"chatls.send": {run: func(s *Server, ctx context.Context, c commandCall) (any, error) {
			if err := s.sess.Send(ctx, c.ds); err != nil {
				return nil, err
			}
			return map[string]any{"sending": true}, nil
		}},
		"chatls.status": {run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			return s.sess.Status(c.ds), nil
		}},
		"chatls.usage": {run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			return s.sess.UsageTotals(c.ds)
		}},
		"chatls.explain": {needsID: true, run: (*Server).explain},
		"chatls.approve": {needsID: true, run: (*Server).setStatusCommand},
		"chatls.reject":  {needsID: true, run: (*Server).setStatusCommand},
		session.CommandAgentOption: {needsID: true, run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			if err := s.sess.ChooseAgentOption(c.ds, c.args.ID, c.args.Option); err != nil {
				return nil, err
			}
			return map[string]any{"chosen": c.args.Option}, nil
		}},
		"chatls.alwaysAllow": {needsID: true, run: func(s *Server, _ context.Context, c commandCall) (any, error) {
			return s.sess.AlwaysAllow(c.ds, c.args.Rule, c.args.Scope)
		}},
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
		list, err := s.sess.ListTools(ctx, args.URI)
		if err != nil || args.Format != "markdown" {
			return list, err
		}
		return map[string]any{"markdown": custom.Markdown(list)}, nil
	case p.Command == "chatls.advance" && args.URI == "":
		// Pickers such as Helix's send commands without arguments.
		return s.sess.AdvanceAll(ctx)
	}
	cmd, ok := s.commands[p.Command]
	if !ok {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "unknown command: " + p.Command}
	}
	ds := s.sess.Doc(args.URI)
	if ds == nil {
		return nil, invalidParams(fmt.Errorf("%s: the document %q is not open", p.Command, args.URI))
	}
	c := commandCall{name: p.Command, ds: ds, doc: s.sess.Latest(ds), args: args}
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
	v := s.sess.Explain(c.ds, c.doc, u)
	md := v.Markdown(u.Name, u.ID, u.RawInput)
	if c.args.Format != "markdown" {
		s.showMessage(lspext.MessageInfo, md)
	}
	return map[string]any{"decision": v.Decision, "reason": v.Reason, "trace": v.Format(), "steps": v.Steps, "markdown": md}, nil
}

// setStatusCommand approves or rejects a pending block (chatls.approve,
// chatls.reject, for code lenses).
func (s *Server) setStatusCommand(_ context.Context, c commandCall) (any, error) {
	to := chatdoc.StatusApproved
	if c.name == "chatls.reject" {
		to = chatdoc.StatusRejected
	}
	return map[string]any{"applied": s.sess.SetStatus(c.ds, c.args.ID, to)}, nil
}

// rewoundResult is a rewind command's answer: what changed, by path.
func rewoundResult(r session.Rewound) map[string]any {
	list := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	return map[string]any{"undoId": r.UndoID, "written": list(r.Written), "removed": list(r.Removed),
		"inEditor": list(r.InEditor), "conflicts": list(r.Conflicts), "cut": r.Cut}
}
