package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

type writeTool struct{}

// writeDefinition is built once: Definition is called per validation and preview.
var writeDefinition = sync.OnceValue(writeTool{}.definition)

func (writeTool) Definition() Definition { return writeDefinition() }

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
	shown, _ := stringArg(call.Input, "path")
	content, _ := stringArg(call.Input, "content")
	if shown == "" {
		return errorResult("No path provided")
	}
	target, err := checkWritable(env, resolvePath(env, shown), shown)
	if err != nil {
		return errorResult("%v", err)
	}
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		return errorResult("%s is a directory", shown)
	} else if err == nil && !fi.Mode().IsRegular() {
		return notRegularResult(shown, fi.Mode(), "write only writes files")
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return errorResult("Cannot create the directory of %s: %v", shown, err)
	}
	if err := writeFileKeepingMode(target, []byte(content)); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return errorResult("Permission denied: %s", shown)
		}
		return errorResult("Cannot write %s: %v", shown, err)
	}
	return Result{Text: "Successfully wrote " + strconv.Itoa(len(content)) + " bytes to " + shown}
}

// writeFileKeepingMode overwrites in place, so an executable stays executable
// and hard links keep pointing at the file.
func writeFileKeepingMode(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return os.WriteFile(path, data, mode)
}
