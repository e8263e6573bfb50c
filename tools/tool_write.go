package tools

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"sync"
)

type writeTool struct{}

// writeDefinition is built once: Definition is called per validation and preview.
var writeDefinition = sync.OnceValue(writeTool{}.definition)

func (writeTool) Definition() Definition { return writeDefinition() }

func (writeTool) Preview(in map[string]any) string {
	path, _ := StringArg(in, "path")
	if c, ok := StringArg(in, "content"); ok {
		return previewParts(path, "("+formatSize(int64(len(c)))+")")
	}
	return path
}

func (writeTool) RunRemote(ctx context.Context, call Call, env Env) Result {
	return writeOnTarget(ctx, call, env)
}

func (writeTool) definition() Definition {
	return Definition{
		Name: "write",
		Description: "Write content to a file. Creates the file if it does not exist, overwrites it if it does. " +
			"Creates parent directories.",
		Source: "builtin",
		Schema: strictSchema(
			required("path", "string", "Path to the file to write (relative to the document's directory, or absolute)"),
			required("content", "string", "Content to write to the file"),
		),
	}
}

func (writeTool) Run(ctx context.Context, call Call, env Env) Result {
	shown, _ := StringArg(call.Input, "path")
	content, _ := StringArg(call.Input, "content")
	if shown == "" {
		return errorResult("No path provided")
	}
	root, rel, err := openWrite(env, shown)
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
	return Result{Text: "Successfully wrote " + strconv.Itoa(len(content)) + " bytes to " + shown}
}
