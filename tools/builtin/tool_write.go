package builtin

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/chatls/chatls/tools"
)

type writeTool struct{}

var writeDefinition = define(tools.Definition{
	Name: "write",
	Description: "Write content to a file. Creates the file if it does not exist, overwrites it if it does. " +
		"Creates parent directories.",
},
	required("path", "string", "Path to the file to write (relative to the document's directory, or absolute)"),
	required("content", "string", "Content to write to the file"),
)

func (writeTool) Definition() tools.Definition { return writeDefinition() }

func (writeTool) Preview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	if c, ok := tools.StringArg(in, "content"); ok {
		return previewParts(path, "("+tools.FormatSize(int64(len(c)))+")")
	}
	return path
}

func (writeTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, _ := tools.StringArg(call.Input, "path")
	content, _ := tools.StringArg(call.Input, "content")
	if shown == "" {
		return errorResult("No path provided")
	}
	root, rel, err := env.OpenWrite(shown)
	if err != nil {
		return errorResult("%v", err)
	}
	defer root.Close()
	if fi, err := root.Stat(rel); err == nil && fi.IsDir() {
		return errorResult("%s is a directory", shown)
	} else if err == nil && !fi.Mode().IsRegular() {
		return notRegularResult(shown, fi.Mode(), "write only writes files")
	}
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return errorResult("Cannot create the directory of %s: %v", shown, err)
	}
	// Overwritten in place (the mode is only for a new file), so an
	// executable stays executable and hard links keep pointing at it.
	if err := root.WriteFile(rel, []byte(content), 0o644); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return errorResult("Permission denied: %s", shown)
		}
		return errorResult("Cannot write %s: %v", shown, err)
	}
	return tools.Result{Text: "Successfully wrote " + strconv.Itoa(len(content)) + " bytes to " + shown}
}

func (writeTool) RunRemote(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, _ := tools.StringArg(call.Input, "path")
	content, _ := tools.StringArg(call.Input, "content")
	if shown == "" {
		return errorResult("No path provided")
	}
	if r, bad := writeRemote(ctx, env, shown, content); bad {
		return r
	}
	return tools.Result{Text: "Successfully wrote " + strconv.Itoa(len(content)) + " bytes to " + shown}
}
