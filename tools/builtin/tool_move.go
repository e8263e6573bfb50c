package builtin

import (
	"context"
	"errors"
	"os"

	"github.com/chatls/chatls/tools"
)

type moveTool struct{}

var moveDefinition = define(tools.Definition{Name: "move", Annotations: destructive(),
	Description: "Move or rename a file or directory. Refuses to overwrite an existing destination unless overwrite is true."},
	transferProperties("move")...)

func (moveTool) Definition() tools.Definition { return moveDefinition() }

func (moveTool) Preview(in map[string]any) string { return transferPreview(in) }

func (moveTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	return transfer(ctx, call, env, true)
}

func isCrossDevice(err error) bool {
	var le *os.LinkError
	return errors.As(err, &le) && le.Err != nil && le.Err.Error() == "invalid cross-device link"
}
