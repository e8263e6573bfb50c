package acp

import (
	"context"
	"encoding/json"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
)

// handle answers what the agent sends: session/update notifications (in
// order, on the SDK's notification queue) and requests (each on its own
// goroutine, after the updates sent before it).
func (a *Agent) handle(ctx context.Context, method string, params json.RawMessage) (any, *sdk.RequestError) {
	if method == sdk.ClientMethodSessionUpdate {
		a.update(params)
		return nil, nil
	}
	if !a.awaitUpdates(a.wire.barrier(method, params)) {
		return nil, sdk.NewInternalError(map[string]any{"error": "the client is stopping"})
	}
	a.setBusy(+1)
	defer a.setBusy(-1)
	res, err := a.request(ctx, method, params)
	if err != nil {
		a.log.Debug("acp request failed", zap.String("method", method), zap.String("error", err.Error()))
	}
	return res, err
}

// update delivers one session/update to the turn of its session.
func (a *Agent) update(params json.RawMessage) {
	var n struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}
	if err := json.Unmarshal(params, &n); err == nil {
		u := decodeUpdate(n.Update)
		a.mu.Lock()
		t := a.sessions[n.SessionID]
		a.mu.Unlock()
		if u.Kind == UpdateOther {
			a.log.Debug("acp update chatls does not render", zap.String("kind", u.Name), zap.ByteString("update", n.Update))
		}
		if t != nil {
			t.deliver(u)
		} else {
			// Between turns: session/load replays the history (the document
			// has it already), and agents announce commands and modes.
			a.log.Debug("acp update outside a turn", zap.String("session", n.SessionID), zap.String("kind", u.Name))
		}
	}
	a.mu.Lock()
	a.delivered++
	a.cond.Broadcast()
	a.mu.Unlock()
}

// awaitUpdates waits until n session/updates were delivered; false when
// the agent has a fault first.
func (a *Agent) awaitUpdates(n uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.delivered < n && a.fault == nil {
		a.cond.Wait()
	}
	return a.fault == nil
}

// setBusy counts the agent's requests chatls is handling: the agent waits
// for chatls then, so its silence is not a fault.
func (a *Agent) setBusy(d int) {
	a.mu.Lock()
	a.busy += d
	a.mu.Unlock()
	a.touch()
}

// touch restarts the silence clock of every turn.
func (a *Agent) touch() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.sessions {
		if t != nil {
			t.heard = time.Now()
		}
	}
}

// request decodes one of the agent's requests and asks the Client.
func (a *Agent) request(ctx context.Context, method string, params json.RawMessage) (any, *sdk.RequestError) {
	switch method {
	case sdk.ClientMethodSessionRequestPermission:
		var p sdk.RequestPermissionRequest
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return a.permission(ctx, p, params)
	case sdk.ClientMethodFsReadTextFile:
		var p sdk.ReadTextFileRequest
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		text, err := a.client.ReadTextFile(ctx, p.Path, deref(p.Line), deref(p.Limit))
		if err != nil {
			return nil, clientError(err)
		}
		return sdk.ReadTextFileResponse{Content: text}, nil
	case sdk.ClientMethodFsWriteTextFile:
		var p sdk.WriteTextFileRequest
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if err := a.client.WriteTextFile(ctx, p.Path, p.Content); err != nil {
			return nil, clientError(err)
		}
		return sdk.WriteTextFileResponse{}, nil
	case sdk.ClientMethodTerminalCreate:
		var p sdk.CreateTerminalRequest
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		req := TerminalRequest{SessionID: string(p.SessionId), Command: p.Command, Args: p.Args, Cwd: deref(p.Cwd), OutputByteLimit: deref(p.OutputByteLimit)}
		for _, e := range p.Env {
			req.Env = append(req.Env, e.Name+"="+e.Value)
		}
		id, err := a.client.CreateTerminal(ctx, req)
		if err != nil {
			return nil, clientError(err)
		}
		return sdk.CreateTerminalResponse{TerminalId: id}, nil
	case sdk.ClientMethodTerminalOutput:
		var p sdk.TerminalOutputRequest
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		out, err := a.client.TerminalOutput(ctx, p.TerminalId)
		if err != nil {
			return nil, clientError(err)
		}
		resp := sdk.TerminalOutputResponse{Output: out.Output, Truncated: out.Truncated}
		if out.Exit != nil {
			resp.ExitStatus = &sdk.TerminalExitStatus{ExitCode: out.Exit.Code, Signal: nonEmpty(out.Exit.Signal)}
		}
		return resp, nil
	case sdk.ClientMethodTerminalWaitForExit:
		var p sdk.WaitForTerminalExitRequest
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		st, err := a.client.WaitForTerminalExit(ctx, p.TerminalId)
		if err != nil {
			return nil, clientError(err)
		}
		return sdk.WaitForTerminalExitResponse{ExitCode: st.Code, Signal: nonEmpty(st.Signal)}, nil
	case sdk.ClientMethodTerminalKill:
		var p sdk.KillTerminalRequest
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if err := a.client.KillTerminal(ctx, p.TerminalId); err != nil {
			return nil, clientError(err)
		}
		return sdk.KillTerminalResponse{}, nil
	case sdk.ClientMethodTerminalRelease:
		var p sdk.ReleaseTerminalRequest
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if err := a.client.ReleaseTerminal(ctx, p.TerminalId); err != nil {
			return nil, clientError(err)
		}
		return sdk.ReleaseTerminalResponse{}, nil
	}
	return nil, sdk.NewMethodNotFound(method)
}

// permission asks the Client, answering "cancelled" when the turn is
// cancelled first (ACP: the client must then answer every pending request
// so).
func (a *Agent) permission(ctx context.Context, p sdk.RequestPermissionRequest, params json.RawMessage) (any, *sdk.RequestError) {
	var raw struct {
		ToolCall rawTool `json:"toolCall"`
	}
	_ = json.Unmarshal(params, &raw)
	req := PermissionRequest{
		SessionID: string(p.SessionId),
		ToolCall: PermissionToolCall{ID: string(p.ToolCall.ToolCallId), Title: deref(p.ToolCall.Title),
			Kind: string(deref(p.ToolCall.Kind)), RawInput: present(raw.ToolCall.RawInput)},
	}
	for _, o := range p.Options {
		req.Options = append(req.Options, Option{ID: string(o.OptionId), Name: o.Name, Kind: string(o.Kind)})
	}
	ctx, stop := a.turnContext(ctx, req.SessionID)
	defer stop()
	id, cancelled, err := a.client.RequestPermission(ctx, req)
	if cancelled || ctx.Err() != nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	if err != nil {
		return nil, clientError(err)
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: sdk.PermissionOptionId(id)}}}, nil
}

// turnContext is ctx, also ended when the session's turn is cancelled.
func (a *Agent) turnContext(ctx context.Context, sessionID string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	a.mu.Lock()
	t := a.sessions[sessionID]
	a.mu.Unlock()
	if t == nil {
		return ctx, cancel
	}
	stop := context.AfterFunc(t.cancelled, cancel)
	return ctx, func() { stop(); cancel() }
}

func decode(params json.RawMessage, v interface{ Validate() error }) *sdk.RequestError {
	if err := json.Unmarshal(params, v); err != nil {
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if err := v.Validate(); err != nil {
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return nil
}

// clientError is the Client's error as the agent reads it: the message
// itself, so the model learns what went wrong.
func clientError(err error) *sdk.RequestError {
	if re, ok := err.(*sdk.RequestError); ok {
		return re
	}
	if err == context.Canceled {
		return sdk.NewRequestCancelled(map[string]any{"error": err.Error()})
	}
	return &sdk.RequestError{Code: -32603, Message: err.Error()}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
