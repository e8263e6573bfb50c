package builtin

import (
	"context"

	"github.com/chatls/chatls/tools"
)

type mkdirTool struct{}

var mkdirDefinition = define(tools.Definition{Name: "mkdir",
	Description: "Create a directory and its missing parents. Succeeds if it already exists."},
	required("path", "string", "Directory to create (relative to the document's directory, or absolute)"))

func (mkdirTool) Definition() tools.Definition { return mkdirDefinition() }

func (mkdirTool) Preview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	return path
}

func (mkdirTool) Run(_ context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, _ := tools.StringArg(call.Input, "path")
	root, rel, err := env.OpenWrite(shown)
	if err != nil {
		return errorResult("%v", err)
	}
	defer root.Close()
	if fi, err := root.Stat(rel); err == nil && !fi.IsDir() {
		return errorResult("%s exists and is not a directory", shown)
	}
	if err := root.MkdirAll(rel, 0o755); err != nil {
		return errorResult("Cannot create %s: %v", shown, err)
	}
	return tools.Result{Text: "Created directory " + shown}
}
