package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/chatls/chatls/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Separator between server and tool name: `server.tool` (Flemma 0.12,
// SPEC §1); 0.11's `server:tool` is still read (Registry.Lookup).
const Separator = "."

var defaultSchema = json.RawMessage(`{"type":"object"}`)

// mcpTool is one tool of an MCP server, named SERVER:tool. It holds the
// Source so that it survives reconnects.
type mcpTool struct {
	src    *Source
	remote string // the name the server knows
	def    tools.Definition
}

var _ tools.Tool = (*mcpTool)(nil)

func (s *Source) newTool(t *sdk.Tool) *mcpTool {
	schema := defaultSchema
	if t.InputSchema != nil {
		if data, err := json.Marshal(t.InputSchema); err == nil && string(data) != "null" {
			schema = data
		}
	}
	return &mcpTool{
		src:    s,
		remote: t.Name,
		def: tools.Definition{
			Name:            s.name + Separator + t.Name,
			Description:     t.Description,
			Schema:          schema,
			Source:          s.Name(),
			Annotations:     annotations(t),
			PreviewTemplate: s.cfg.Previews[t.Name],
		},
	}
}

// annotations copies the server's hints for display; the policy never reads
// them because a server can claim anything.
func annotations(t *sdk.Tool) map[string]any {
	out := map[string]any{}
	if t.Annotations != nil {
		data, err := json.Marshal(t.Annotations)
		if err == nil {
			_ = json.Unmarshal(data, &out)
		}
	}
	if t.Title != "" {
		out["title"] = t.Title
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (t *mcpTool) Definition() tools.Definition { return t.def }

func (t *mcpTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	if _, ok := ctx.Deadline(); !ok && env.DefaultTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(env.DefaultTimeout)*time.Second)
		defer cancel()
	}
	session, err := t.src.session(ctx)
	if err != nil {
		return errorResult(err.Error())
	}
	args := call.Input
	if args == nil {
		args = map[string]any{}
	}
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	switch {
	case err == nil:
		return toResult(res)
	case errors.Is(ctx.Err(), context.Canceled):
		return tools.Result{Text: tools.CancelledText, IsError: true, Cancelled: true}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return errorResult(fmt.Sprintf("MCP server %s did not answer %s in time", t.src.name, t.remote))
	case errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed):
		res := errorResult(t.src.connectionLost(session, t.remote))
		res.Transient = true
		return res
	default:
		return errorResult(fmt.Sprintf("MCP server %s: %s failed: %v", t.src.name, t.remote, err))
	}
}

func errorResult(text string) tools.Result {
	return tools.Result{Text: text, IsError: true}
}
