package builtin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/chatls/chatls/tools"
)

type deleteTool struct{}

var deleteDefinition = define(tools.Definition{Name: "delete", Annotations: destructive(),
	Description: "Delete a file, or a directory with everything in it when recursive is true."},
	required("path", "string", "File or directory to delete"),
	optional("recursive", "boolean", "Delete a directory and its contents (default false)"))

func (deleteTool) Definition() tools.Definition { return deleteDefinition() }

func (deleteTool) Preview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	if r, _ := in["recursive"].(bool); r {
		return previewParts(path, "(recursive: the directory and everything in it)")
	}
	return path
}

func (deleteTool) Run(_ context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, _ := tools.StringArg(call.Input, "path")
	recursive, _ := call.Input["recursive"].(bool)
	root, rel, err := env.OpenWrite(shown)
	if err != nil {
		return errorResult("%v", err)
	}
	defer root.Close()
	if rel == "." {
		return errorResult("Refusing to delete %s: it is a writable directory itself", shown)
	}
	fi, err := root.Lstat(rel)
	if err != nil {
		return errorResult("Cannot delete %s: %v", shown, notFound(err))
	}
	if fi.IsDir() {
		if !recursive {
			return errorResult("%s is a directory: set recursive to true to delete it with its contents", shown)
		}
		n := countEntries(root, rel)
		if err := root.RemoveAll(rel); err != nil {
			return errorResult("Cannot delete %s: %v", shown, err)
		}
		return tools.Result{Text: fmt.Sprintf("Deleted directory %s (%d entries)", shown, n)}
	}
	if err := root.Remove(rel); err != nil {
		return errorResult("Cannot delete %s: %v", shown, err)
	}
	return tools.Result{Text: "Deleted " + shown}
}

// countEntries counts what is inside the directory rel.
func countEntries(root *os.Root, rel string) int {
	n := 0
	_ = fs.WalkDir(root.FS(), rel, func(p string, _ fs.DirEntry, err error) error {
		if err == nil && p != rel {
			n++
		}
		return nil
	})
	return n
}

func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such file or directory")
	}
	return err
}
