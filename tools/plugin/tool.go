package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chatls/chatls/tools"
)

// defaultSchema is used when a plugin declares no parameters.
var defaultSchema = json.RawMessage(`{"type":"object"}`)

// pluginTool is one tool a plugin declared. It holds the Source, not a
// process, so it keeps working across restarts.
type pluginTool struct {
	src  *Source
	def  tools.Definition
	spec toolSpec
}

var _ tools.Tool = (*pluginTool)(nil)

func (s *Source) buildTools(specs []toolSpec) []tools.Tool {
	list := make([]tools.Tool, 0, len(specs))
	for _, spec := range specs {
		schema := spec.Parameters
		if len(schema) == 0 || string(schema) == "null" {
			schema = defaultSchema
		}
		preview := spec.Preview
		if s.cfg.Preview != "" {
			preview = s.cfg.Preview
		}
		list = append(list, &pluginTool{
			src:  s,
			spec: spec,
			def: tools.Definition{
				Name:            spec.Name,
				Description:     spec.Description,
				Schema:          schema,
				Source:          s.Name(),
				PreviewTemplate: preview,
			},
		})
	}
	return list
}

func (t *pluginTool) Definition() tools.Definition { return t.def }

// Run sends the call to the plugin and waits for its result, the plugin's
// death, or ctx.
func (t *pluginTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	if _, ok := ctx.Deadline(); !ok && env.DefaultTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(env.DefaultTimeout)*time.Second)
		defer cancel()
	}
	name := t.src.cfg.Name
	proc, id, ch, err := t.reserve(ctx, call.ID)
	if err != nil {
		return errorResult(err.Error())
	}
	params := call.Input
	if params == nil {
		params = map[string]any{}
	}
	if err := proc.send(callRequest{Type: typeCall, Name: t.spec.Name, CallID: id, Params: params, Cwd: env.Dir}); err != nil {
		proc.unregister(id)
		select {
		case <-proc.done:
			return t.died(proc.err())
		case <-time.After(100 * time.Millisecond):
			return errorResult(fmt.Sprintf("cannot send the call to plugin %s: %v", name, err))
		}
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return t.died(r.err)
		}
		return tools.Result{Text: r.msg.text(), IsError: r.msg.IsError}
	case <-ctx.Done():
		if proc.isPending(id) {
			proc.unregister(id)
			_ = proc.send(cancelRequest{Type: typeCancel, CallID: id})
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errorResult(fmt.Sprintf("plugin %s did not answer %s in time", name, t.spec.Name))
		}
		return tools.Result{Text: tools.CancelledText, IsError: true, Cancelled: true}
	}
}

// reserve finds the live process and a call_id for the call; a process that
// dies before the call is sent is replaced, since nothing ran yet.
func (t *pluginTool) reserve(ctx context.Context, toolUseID string) (*process, string, chan reply, error) {
	for attempt := 0; ; attempt++ {
		proc, err := t.src.acquire(ctx)
		if err != nil {
			return nil, "", nil, err
		}
		id := t.src.nextCallID(toolUseID)
		ch, ok := proc.register(id)
		if !ok && proc.err() == nil {
			// The same tool-use ID is already in flight.
			id = t.src.nextCallID("")
			ch, ok = proc.register(id)
		}
		if ok {
			return proc, id, ch, nil
		}
		if attempt > 0 {
			return nil, "", nil, fmt.Errorf("plugin %s died before the call could be sent: %v", t.src.cfg.Name, proc.err())
		}
	}
}

func (t *pluginTool) died(reason error) tools.Result {
	return errorResult(fmt.Sprintf("plugin %s died while running %s: %v; chatls restarts it", t.src.cfg.Name, t.spec.Name, reason))
}

func errorResult(text string) tools.Result {
	return tools.Result{Text: text, IsError: true}
}
