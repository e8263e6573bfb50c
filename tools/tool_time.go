package tools

import (
	"context"
	"strconv"
	"sync"
	"time"
)

type timeTool struct{ now func() time.Time }

var timeFormats = []any{"iso", "epoch", "epoch_ms", "rfc2822", "date", "time", nil}

// timeDefinition is built once: Definition is called per validation and preview.
var timeDefinition = sync.OnceValue(timeTool{}.definition)

func (timeTool) Definition() Definition { return timeDefinition() }

func (timeTool) Preview(in map[string]any) string {
	f, _ := StringArg(in, "format")
	if f == "" {
		f = "iso"
	}
	return f
}

func (timeTool) Fileless() {}

func (timeTool) definition() Definition {
	return Definition{
		Name:        "time",
		Description: "Get the current local date and time.",
		Source:      "builtin",
		Schema: strictSchema(
			optional("format", "string",
				"iso (RFC 3339, default), epoch (seconds), epoch_ms, rfc2822, date (YYYY-MM-DD) or time (HH:MM:SS)").
				with("enum", timeFormats),
		),
	}
}

func (t timeTool) Run(ctx context.Context, call Call, env Env) Result {
	now := t.now()
	format, _ := StringArg(call.Input, "format")
	switch format {
	case "", "iso":
		return Result{Text: now.Format(time.RFC3339)}
	case "epoch":
		return Result{Text: strconv.FormatInt(now.Unix(), 10)}
	case "epoch_ms":
		return Result{Text: strconv.FormatInt(now.UnixMilli(), 10)}
	case "rfc2822":
		return Result{Text: now.Format(time.RFC1123Z)}
	case "date":
		return Result{Text: now.Format(time.DateOnly)}
	case "time":
		return Result{Text: now.Format(time.TimeOnly)}
	}
	return errorResult("Unknown format %q: use iso, epoch, epoch_ms, rfc2822, date or time", format)
}
