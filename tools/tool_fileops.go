package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/chatls/chatls/internal/fspath"
)

// The file tools of SPEC §5 "More built-ins": mkdir, copy, move, delete.
// Every path they touch follows the write rules (writeTarget: inside the
// writable set when writes are restricted, through an os.Root so a symlink
// swapped in meanwhile cannot carry the change elsewhere); they never
// overwrite unless asked.

type mkdirTool struct{}
type copyTool struct{}
type moveTool struct{}
type deleteTool struct{}

var (
	mkdirDefinition = sync.OnceValue(func() Definition {
		return Definition{Name: "mkdir", Source: "builtin",
			Description: "Create a directory and its missing parents. Succeeds if it already exists.",
			Schema:      strictSchema(required("path", "string", "Directory to create (relative to the document's directory, or absolute)"))}
	})
	copyDefinition = sync.OnceValue(func() Definition {
		return Definition{Name: "copy", Source: "builtin",
			Description: "Copy a file (or a directory with its contents). Refuses to overwrite an existing destination unless overwrite is true.",
			Schema:      transferSchema("copy")}
	})
	moveDefinition = sync.OnceValue(func() Definition {
		return Definition{Name: "move", Source: "builtin",
			Description: "Move or rename a file or directory. Refuses to overwrite an existing destination unless overwrite is true.",
			Schema:      transferSchema("move"), Annotations: map[string]any{"destructiveHint": true}}
	})
	deleteDefinition = sync.OnceValue(func() Definition {
		return Definition{Name: "delete", Source: "builtin",
			Description: "Delete a file, or a directory with everything in it when recursive is true.",
			Schema: strictSchema(
				required("path", "string", "File or directory to delete"),
				optional("recursive", "boolean", "Delete a directory and its contents (default false)"),
			), Annotations: map[string]any{"destructiveHint": true}}
	})
)

func transferSchema(verb string) json.RawMessage {
	return strictSchema(
		required("source", "string", "File or directory to "+verb),
		required("destination", "string", "Where to "+verb+" it"),
		optional("overwrite", "boolean", "Replace an existing destination (default false)"),
	)
}

func (mkdirTool) Definition() Definition  { return mkdirDefinition() }
func (copyTool) Definition() Definition   { return copyDefinition() }
func (moveTool) Definition() Definition   { return moveDefinition() }
func (deleteTool) Definition() Definition { return deleteDefinition() }

func (mkdirTool) Preview(in map[string]any) string {
	path, _ := StringArg(in, "path")
	return path
}

func (deleteTool) Preview(in map[string]any) string {
	path, _ := StringArg(in, "path")
	if r, _ := in["recursive"].(bool); r {
		return previewParts(path, "(recursive: the directory and everything in it)")
	}
	return path
}

func (copyTool) Preview(in map[string]any) string { return transferPreview(in) }
func (moveTool) Preview(in map[string]any) string { return transferPreview(in) }

// transferPreview is copy's and move's preview: `source → destination`.
func transferPreview(in map[string]any) string {
	src, _ := StringArg(in, "source")
	dst, _ := StringArg(in, "destination")
	if o, _ := in["overwrite"].(bool); o {
		return previewParts(src+" → "+dst, "(overwrite)")
	}
	return src + " → " + dst
}

func (mkdirTool) Run(_ context.Context, call Call, env Env) Result {
	shown, _ := StringArg(call.Input, "path")
	root, rel, err := openWrite(env, shown)
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
	return Result{Text: "Created directory " + shown}
}

func (deleteTool) Run(_ context.Context, call Call, env Env) Result {
	shown, _ := StringArg(call.Input, "path")
	recursive, _ := call.Input["recursive"].(bool)
	root, rel, err := openWrite(env, shown)
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
		return Result{Text: fmt.Sprintf("Deleted directory %s (%d entries)", shown, n)}
	}
	if err := root.Remove(rel); err != nil {
		return errorResult("Cannot delete %s: %v", shown, err)
	}
	return Result{Text: "Deleted " + shown}
}

func (copyTool) Run(ctx context.Context, call Call, env Env) Result {
	return transfer(ctx, call, env, false)
}

func (moveTool) Run(ctx context.Context, call Call, env Env) Result {
	return transfer(ctx, call, env, true)
}

// transfer copies or moves source to destination, both under the write
// rules (a move changes its source too; a copy only reads it).
func transfer(ctx context.Context, call Call, env Env, move bool) Result {
	src, _ := StringArg(call.Input, "source")
	dst, _ := StringArg(call.Input, "destination")
	overwrite, _ := call.Input["overwrite"].(bool)
	var from string
	if move {
		target, _, err := writeTarget(env, src)
		if err != nil {
			return errorResult("%v", err)
		}
		from = target
	} else {
		from = readPath(env, src)
	}
	to, _, err := writeTarget(env, dst)
	if err != nil {
		return errorResult("%v", err)
	}
	fi, err := os.Lstat(from)
	if err != nil {
		return errorResult("Cannot read %s: %v", src, notFound(err))
	}
	if from == to {
		return errorResult("%s and %s are the same file", src, dst)
	}
	if fi.IsDir() && fspath.Within(to, from) {
		return errorResult("Cannot put %s inside itself (%s)", src, dst)
	}
	if _, err := os.Lstat(to); err == nil {
		if !overwrite {
			return errorResult("%s already exists: set overwrite to true to replace it", dst)
		}
		if err := os.RemoveAll(to); err != nil {
			return errorResult("Cannot replace %s: %v", dst, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return errorResult("Cannot create the directory of %s: %v", dst, err)
	}
	verb := "Copied"
	if move {
		verb = "Moved"
		if err := os.Rename(from, to); err == nil {
			return Result{Text: fmt.Sprintf("%s %s to %s", verb, src, dst)}
		} else if !errors.Is(err, os.ErrInvalid) && !isCrossDevice(err) {
			return errorResult("Cannot move %s: %v", src, err)
		}
	}
	if err := copyTree(ctx, from, to); err != nil {
		return errorResult("Cannot copy %s: %v", src, err)
	}
	if move {
		if err := os.RemoveAll(from); err != nil {
			return errorResult("Copied %s to %s but could not remove the source: %v", src, dst, err)
		}
	}
	return Result{Text: fmt.Sprintf("%s %s to %s", verb, src, dst)}
}

// copyTree copies a file, symlink or directory; files keep their mode.
func copyTree(ctx context.Context, from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		target := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case info.Mode().IsRegular():
			return copyFile(p, target, info.Mode().Perm())
		}
		return fmt.Errorf("%s is not a regular file, directory or symlink", p)
	})
}

func copyFile(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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

func isCrossDevice(err error) bool {
	var le *os.LinkError
	return errors.As(err, &le) && le.Err != nil && le.Err.Error() == "invalid cross-device link"
}

func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such file or directory")
	}
	return err
}
