package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/chatls/chatls/internal/fspath"
	"github.com/chatls/chatls/tools"
)

// The file tools of SPEC §5 "More built-ins" (mkdir, copy, move, delete):
// every path they touch follows the write rules (Env.WriteTarget: inside
// the writable set when writes are restricted, through an os.Root so a
// symlink swapped in meanwhile cannot carry the change elsewhere); they
// never overwrite unless asked. copy and move share transfer, here.

type copyTool struct{}

var copyDefinition = define(tools.Definition{Name: "copy",
	Description: "Copy a file (or a directory with its contents). Refuses to overwrite an existing destination unless overwrite is true."},
	transferProperties("copy")...)

// transferProperties are the input of copy and move.
func transferProperties(verb string) []property {
	return []property{
		required("source", "string", "File or directory to "+verb),
		required("destination", "string", "Where to "+verb+" it"),
		optional("overwrite", "boolean", "Replace an existing destination (default false)"),
	}
}

func (copyTool) Definition() tools.Definition     { return copyDefinition() }
func (copyTool) Preview(in map[string]any) string { return transferPreview(in) }

// transferPreview is copy's and move's preview: `source → destination`.
func transferPreview(in map[string]any) string {
	src, _ := tools.StringArg(in, "source")
	dst, _ := tools.StringArg(in, "destination")
	if o, _ := in["overwrite"].(bool); o {
		return previewParts(src+" → "+dst, "(overwrite)")
	}
	return src + " → " + dst
}

func (copyTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	return transfer(ctx, call, env, false)
}

// transfer copies or moves source to destination, both under the write
// rules (a move changes its source too; a copy only reads it).
func transfer(ctx context.Context, call tools.Call, env tools.Env, move bool) tools.Result {
	src, _ := tools.StringArg(call.Input, "source")
	dst, _ := tools.StringArg(call.Input, "destination")
	overwrite, _ := call.Input["overwrite"].(bool)
	var from string
	if move {
		target, _, err := env.WriteTarget(src)
		if err != nil {
			return errorResult("%v", err)
		}
		from = target
	} else {
		from = env.ReadPath(src)
	}
	to, _, err := env.WriteTarget(dst)
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
			return tools.Result{Text: fmt.Sprintf("%s %s to %s", verb, src, dst)}
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
	return tools.Result{Text: fmt.Sprintf("%s %s to %s", verb, src, dst)}
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
