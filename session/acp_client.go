package session

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"go.uber.org/zap"
	"mvdan.cc/sh/v3/syntax"

	"github.com/chatls/chatls/acp"
	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
)

// agentClient answers a document's agent (acp.Client): its permission
// requests become approvals in the text, decided by the policy first,
// else by the user's edit (SPEC §12); its file and terminal requests run
// as chatls's own read, write and bash calls, under the same policy,
// sandbox, limits and checkpoints.
type agentClient struct {
	s  *Session
	ds *Doc

	seq   atomic.Int64
	mu    sync.Mutex
	terms map[string]*agentTerminal
}

var _ acp.Client = (*agentClient)(nil)

// agentCall is a call of the agent's in chatls's terms, so the policy's
// rules for chatls's own tools apply: execute with a command is bash,
// read of a path is read, edit/delete/move of a path is write; any other
// keeps the name its Tool Use shows and its raw input.
func agentCall(kind, title string, raw json.RawMessage) (string, map[string]any) {
	var in map[string]any
	_ = json.Unmarshal(raw, &in)
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := in[k].(string); ok && v != "" {
				return v
			}
		}
		return ""
	}
	switch kind {
	case "execute":
		if c := str("command", "cmd"); c != "" {
			return "bash", map[string]any{"command": c}
		}
	case "read":
		if p := str("path", "file_path", "abs_path"); p != "" {
			return "read", map[string]any{"path": p}
		}
	case "edit", "delete", "move":
		if p := str("path", "file_path", "abs_path"); p != "" {
			return "write", map[string]any{"path": p, "content": str("content", "new_string")}
		}
	}
	if in == nil {
		in = map[string]any{}
	}
	return acp.ToolName(&acp.ToolCall{Kind: kind, Title: title}), in
}

// verdict is the policy's decision on a call of the agent's.
func (c *agentClient) verdict(id, name string, input map[string]any) approval.Verdict {
	raw, _ := json.Marshal(input)
	u := &chatdoc.ToolUse{ID: id, Name: name, RawInput: string(raw), Fence: &chatdoc.Fence{Info: "json", Ticks: 3}}
	return c.s.decide(c.ds, c.s.latest(c.ds), u, "agent")
}

// RequestPermission: the policy's approve is the agent's allow-once
// option, its deny the reject-once option; otherwise the call gets a
// pending placeholder and the user's edit of it (status=approved or
// status=rejected) chooses, or one of the agent's own options, chosen by
// its code action (ChooseAgentOption).
func (c *agentClient) RequestPermission(ctx context.Context, req acp.PermissionRequest) (string, bool, error) {
	s, ds := c.s, c.ds
	tc := acp.ToolCall{ID: req.ToolCall.ID, Title: req.ToolCall.Title, Kind: req.ToolCall.Kind, RawInput: req.ToolCall.RawInput}
	s.mu.Lock()
	a := s.agents.forDoc(ds)
	ans, st := a.answer, a.stream
	if known := (*agentTool)(nil); ans != nil {
		// The request names a call the agent reported: what it leaves out
		// (claude-code-acp sends no kind) is as reported.
		if known = ans.calls[tc.ID]; known != nil {
			tc.Kind = cmp.Or(tc.Kind, known.call.Kind)
			tc.Title = cmp.Or(tc.Title, known.call.Title)
			if tc.RawInput == nil {
				tc.RawInput = known.call.RawInput
			}
		}
	}
	s.mu.Unlock()
	if ans == nil {
		return "", true, nil // no turn: nothing to ask in
	}
	name, input := agentCall(tc.Kind, tc.Title, tc.RawInput)
	allow := func() (string, bool, error) {
		o, ok := acp.OptionOfKind(req.Options, acp.AllowOnce, acp.AllowAlways)
		if !ok {
			return "", false, fmt.Errorf("the agent offered no option to allow %s", tc.ID)
		}
		s.mu.Lock()
		if a.allowed != nil {
			a.allowed[tc.ID] = true
		}
		s.mu.Unlock()
		return o.ID, false, nil
	}
	reject := func() (string, bool, error) {
		o, ok := acp.OptionOfKind(req.Options, acp.RejectOnce, acp.RejectAlways)
		if !ok {
			return "", true, nil // nothing to reject with: as if cancelled
		}
		return o.ID, false, nil
	}
	v := c.verdict(tc.ID, name, input)
	s.log.Debug("agent permission", zap.String("id", tc.ID), zap.String("tool", name), zap.Any("input", input),
		zap.String("decision", string(v.Decision)), zap.String("reason", v.Reason))
	switch v.Decision {
	case approval.Approve:
		return allow()
	case approval.Deny:
		return reject()
	}
	s.mu.Lock()
	if a.answer != ans {
		s.mu.Unlock()
		return "", true, nil
	}
	out, placed := ans.permission(tc)
	st.push(out.text)
	s.mu.Unlock()
	if placed {
		// Its block is written already: it waits for the user now.
		s.editDocument(ds, "chatls: the agent asks", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			r := doc.ToolResult(tc.ID)
			if r == nil || r.Status != chatdoc.StatusApproved {
				return nil, nil
			}
			return chatdoc.SetStatus(doc, tc.ID, chatdoc.StatusPending)
		})
	}
	// The agent's own options are code actions on the placeholder
	// (acp_options.go) while it waits.
	ask := &agentAsk{options: req.Options, decided: make(chan struct{})}
	s.mu.Lock()
	if a.asks == nil {
		a.asks = map[string]*agentAsk{}
	}
	a.asks[tc.ID] = ask
	s.mu.Unlock()
	s.showMessage(MessageInfo, fmt.Sprintf("chatls: the agent asks to run %s (%s): approve or reject it in the document (status=approved or status=rejected), or choose one of its options among the code actions", name, tc.ID))
	defer func() {
		s.mu.Lock()
		ans.decided(tc.ID)
		if a.asks[tc.ID] == ask {
			delete(a.asks, tc.ID)
		}
		s.mu.Unlock()
	}()
	chosen := func() (string, bool, error) {
		o := ask.chosen
		if allows(o.Kind) {
			s.mu.Lock()
			if a.allowed != nil {
				a.allowed[tc.ID] = true
			}
			s.mu.Unlock()
		}
		return o.ID, false, nil
	}
	// The block chatls wrote says pending, and the agent's text cannot
	// write a result block: a status other than pending there is the
	// user's edit. A block written before as approved (the call was
	// running) counts only once it was seen pending again. Snapshots are
	// sampled, so the pending one may never be seen otherwise.
	seen := !placed
	for {
		s.mu.Lock()
		doc, changed, picked := ds.snap, ds.changed, ask.chosen != nil
		s.mu.Unlock()
		// Once an option is chosen by its action, the placeholder's new
		// status is that choice's, not an approval to answer allow-once.
		if r := doc.ToolResult(tc.ID); !picked && r != nil && r.IsPlaceholder() {
			s.log.Debug("agent permission waits", zap.String("id", tc.ID), zap.String("status", string(r.Status)), zap.Bool("seen", seen))
			switch r.Status {
			case chatdoc.StatusPending:
				seen = true
			case chatdoc.StatusApproved:
				if seen {
					return allow()
				}
			case chatdoc.StatusRejected, chatdoc.StatusDenied:
				if seen {
					return reject()
				}
			}
		}
		select {
		case <-changed:
		case <-ask.decided:
			return chosen()
		case <-ctx.Done():
			return "", true, nil
		case <-ds.done:
			return "", true, nil
		}
	}
}

// permitted says whether a file or terminal request of the agent may run:
// the policy approves it, or it asks and a call the agent was allowed to
// run (by the policy or the user) is under way — the request is its work.
func (c *agentClient) permitted(what, name string, input map[string]any) error {
	id := "acp_" + name + "_" + strconv.FormatInt(c.seq.Add(1), 10)
	v := c.verdict(id, name, input)
	switch v.Decision {
	case approval.Approve:
		return nil
	case approval.Deny:
		return fmt.Errorf("chatls's policy denies %s: %s", what, v.Reason)
	}
	c.s.mu.Lock()
	a := c.s.agents.forDoc(c.ds)
	ok := a.answer != nil && a.answer.running(a.allowed)
	c.s.mu.Unlock()
	if ok {
		return nil
	}
	return fmt.Errorf("chatls's policy asks before %s and no permission was asked for it: request permission first (or the user adds a rule for it)", what)
}

func (c *agentClient) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	if err := c.permitted("reading "+path, "read", map[string]any{"path": path}); err != nil {
		return "", err
	}
	text, ok := c.openText(path)
	if !ok {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		text = string(data)
	}
	if line <= 1 && limit <= 0 {
		return text, nil
	}
	lines := strings.SplitAfter(text, "\n")
	from := max(line-1, 0)
	if from >= len(lines) {
		return "", nil
	}
	to := len(lines)
	if limit > 0 && from+limit < to {
		to = from + limit
	}
	return strings.Join(lines[from:to], ""), nil
}

// openText is the text of a document or other file open in the session
// at path: the editor's, which may not be saved.
func (c *agentClient) openText(path string) (string, bool) {
	for _, d := range c.s.openDocs() {
		if d.path == path {
			return c.s.latest(d).Text(), true
		}
	}
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r // followed files are named so
	}
	if f, ok := c.s.openFiles()[real]; ok {
		return f.doc.Text(), true
	}
	return "", false
}

// WriteTextFile runs chatls's write tool (checkpointed, SPEC §10) on
// disk; a file open in the editor changes there instead, through
// workspace/applyEdit (writeOpenFile), so that the buffer the user may
// not have saved is the one changed.
func (c *agentClient) WriteTextFile(ctx context.Context, path, content string) error {
	if err := c.permitted("writing "+path, "write", map[string]any{"path": path, "content": content}); err != nil {
		return err
	}
	if done, err := c.writeOpenFile(ctx, path, content); done {
		return err
	}
	res := c.run(ctx, tools.Call{Name: "write", Input: map[string]any{"path": path, "content": content}}, "", nil)
	if res.IsError {
		return fmt.Errorf("%s", res.Text)
	}
	return nil
}

// run runs one of chatls's tools for the agent, as a call of the document;
// onOutput, when set, gets the call's output as it runs (tools.Env.OnOutput).
func (c *agentClient) run(ctx context.Context, call tools.Call, dir string, onOutput func(*tools.OutputSink)) tools.Result {
	call.ID = "acp_" + call.Name + "_" + strconv.FormatInt(c.seq.Add(1), 10)
	env := c.s.toolEnv(c.ds)
	if dir != "" {
		env.Dir, env.BashCwd = dir, ""
	}
	env.OnOutput = onOutput
	after := c.s.checkpoint(c.ds, call, env)
	res := c.s.runner.Run(ctx, call, env)
	after()
	return res
}

// agentTerminal is a terminal/create: chatls's bash call, run to its end.
type agentTerminal struct {
	cancel context.CancelFunc
	done   chan struct{}
	res    tools.Result
	limit  int

	mu   sync.Mutex
	live *tools.OutputSink // the running call's output, for terminal/output before the end
}

func (t *agentTerminal) setLive(s *tools.OutputSink) {
	t.mu.Lock()
	t.live = s
	t.mu.Unlock()
}

// soFar is the output of the running command, cut to the agent's limit.
func (t *agentTerminal) soFar() (string, bool) {
	t.mu.Lock()
	live := t.live
	t.mu.Unlock()
	if live == nil {
		return "", false // not started yet (the sandbox being set up)
	}
	return cutToLimit(live.SoFar(), t.limit)
}

func (c *agentClient) CreateTerminal(ctx context.Context, req acp.TerminalRequest) (string, error) {
	line := acp.ShellLine(req.Command, req.Args)
	if len(req.Env) > 0 {
		var exports []string
		for _, kv := range req.Env {
			k, v, _ := strings.Cut(kv, "=")
			q, err := syntax.Quote(v, syntax.LangBash)
			if err != nil || !validName(k) {
				continue
			}
			exports = append(exports, "export "+k+"="+q)
		}
		line = strings.Join(append(exports, line), "; ")
	}
	if err := c.permitted("running "+line, "bash", map[string]any{"command": line}); err != nil {
		return "", err
	}
	runCtx, cancel := context.WithCancel(c.s.baseCtx)
	t := &agentTerminal{cancel: cancel, done: make(chan struct{}), limit: req.OutputByteLimit}
	id := "term_" + strconv.FormatInt(c.seq.Add(1), 10)
	c.mu.Lock()
	if c.terms == nil {
		c.terms = map[string]*agentTerminal{}
	}
	c.terms[id] = t
	c.mu.Unlock()
	c.s.tasks.Add(1)
	go func() {
		defer c.s.tasks.Done()
		defer close(t.done)
		t.res = c.run(runCtx, tools.Call{Name: "bash", Input: map[string]any{"command": line}}, req.Cwd, t.setLive)
		c.s.mu.Lock()
		if a := c.s.agents.forDoc(c.ds); a.answer != nil {
			a.answer.terminal(id, t.output())
		}
		c.s.mu.Unlock()
	}()
	return id, nil
}

func validName(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// output is the command's output, cut to the agent's limit from the start.
func (t *agentTerminal) output() string {
	out, _ := cutToLimit(t.res.Text, t.limit)
	return out
}

// cutToLimit keeps the last limit bytes of out (ACP's outputByteLimit cuts
// from the beginning), on a character boundary; 0 is no limit.
func cutToLimit(out string, limit int) (string, bool) {
	if limit <= 0 || len(out) <= limit {
		return out, false
	}
	cut := len(out) - limit
	for cut < len(out) && !utf8.RuneStart(out[cut]) {
		cut++
	}
	return out[cut:], true
}

func (t *agentTerminal) exit() acp.ExitStatus {
	if t.res.ExitCode != nil {
		return acp.ExitStatus{Code: t.res.ExitCode}
	}
	code := 0
	if t.res.IsError {
		code = 1
	}
	return acp.ExitStatus{Code: &code}
}

func (c *agentClient) terminal(id string) (*agentTerminal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.terms[id]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("no terminal %s (released, or never created)", id)
}

// TerminalOutput: the output so far while the command runs, all of it
// with the exit status once it ended.
func (c *agentClient) TerminalOutput(ctx context.Context, id string) (acp.TerminalOutput, error) {
	t, err := c.terminal(id)
	if err != nil {
		return acp.TerminalOutput{}, err
	}
	select {
	case <-t.done:
		st := t.exit()
		return acp.TerminalOutput{Output: t.output(), Truncated: t.res.Truncated || t.limit > 0 && len(t.res.Text) > t.limit, Exit: &st}, nil
	default:
		// Still running: what it printed so far, as ACP's terminal/output
		// promises (an agent polls it to follow a long command).
		out, cut := t.soFar()
		return acp.TerminalOutput{Output: out, Truncated: cut}, nil
	}
}

func (c *agentClient) WaitForTerminalExit(ctx context.Context, id string) (acp.ExitStatus, error) {
	t, err := c.terminal(id)
	if err != nil {
		return acp.ExitStatus{}, err
	}
	select {
	case <-t.done:
		return t.exit(), nil
	case <-ctx.Done():
		return acp.ExitStatus{}, ctx.Err()
	}
}

func (c *agentClient) KillTerminal(ctx context.Context, id string) error {
	t, err := c.terminal(id)
	if err != nil {
		return err
	}
	t.cancel()
	return nil
}

func (c *agentClient) ReleaseTerminal(ctx context.Context, id string) error {
	t, err := c.terminal(id)
	if err != nil {
		return err
	}
	t.cancel()
	c.mu.Lock()
	delete(c.terms, id)
	c.mu.Unlock()
	return nil
}
