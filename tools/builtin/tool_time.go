package builtin

import (
	"context"
	"strconv"
	"time"

	"github.com/chatls/chatls/tools"
)

type timeTool struct {
	readsOnly
	now func() time.Time
}

var timeFormats = []any{"iso", "epoch", "epoch_ms", "rfc2822", "date", "time", nil}

var timeDefinition = define(tools.Definition{
	Name:        "time",
	Description: "Get the current local date and time.",
},
	optional("format", "string",
		"iso (RFC 3339, default), epoch (seconds), epoch_ms, rfc2822, date (YYYY-MM-DD) or time (HH:MM:SS)").
		with("enum", timeFormats),
)

func (timeTool) Definition() tools.Definition { return timeDefinition() }

func (timeTool) Preview(in map[string]any) string {
	f, _ := tools.StringArg(in, "format")
	if f == "" {
		f = "iso"
	}
	return f
}

func (timeTool) Fileless() {}

func (t timeTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	now := t.now()
	format, _ := tools.StringArg(call.Input, "format")
	switch format {
	case "", "iso":
		return tools.Result{Text: now.Format(time.RFC3339)}
	case "epoch":
		return tools.Result{Text: strconv.FormatInt(now.Unix(), 10)}
	case "epoch_ms":
		return tools.Result{Text: strconv.FormatInt(now.UnixMilli(), 10)}
	case "rfc2822":
		return tools.Result{Text: now.Format(time.RFC1123Z)}
	case "date":
		return tools.Result{Text: now.Format(time.DateOnly)}
	case "time":
		return tools.Result{Text: now.Format(time.TimeOnly)}
	}
	return errorResult("Unknown format %q: use iso, epoch, epoch_ms, rfc2822, date or time", format)
}
