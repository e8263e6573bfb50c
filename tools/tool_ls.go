package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

const (
	defaultLsLimit = 500
	maxLsDepth     = 10
)

type lsTool struct{}

// lsDefinition is built once: Definition is called per validation and preview.
var lsDefinition = sync.OnceValue(lsTool{}.definition)

func (lsTool) Definition() Definition { return lsDefinition() }

func (lsTool) Preview(in map[string]any) string {
	p, _ := StringArg(in, "path")
	if p == "" {
		p = "."
	}
	if d, ok := NumberArg(in, "maxDepth"); ok {
		return previewParts(p, "depth="+FormatNumber(d))
	}
	return p
}

func (lsTool) RetrySafe(map[string]any) bool { return true }

func (lsTool) RunRemote(ctx context.Context, call Call, env Env) Result {
	return lsOnTarget(ctx, call, env)
}

func (lsTool) definition() Definition {
	return Definition{
		Name: "ls",
		Description: "List a directory: directories first (with a trailing /), then files with their sizes. " +
			"maxDepth > 1 lists subdirectories indented below their parent (not into .git, node_modules, vendor…).",
		Source: "builtin",
		Schema: strictSchema(
			optional("path", "string", "Directory to list (default: the document's directory)"),
			optional("maxDepth", "integer", "How many levels to list (default 1)").with("minimum", 1),
			optional("limit", "integer", fmt.Sprintf("Maximum number of entries (default %d)", defaultLsLimit)).with("minimum", 1),
		),
	}
}

func (lsTool) Run(ctx context.Context, call Call, env Env) Result {
	in := readLsInput(call)
	shown := in.path
	dir := readPath(env, shown)
	if shown == "" {
		shown = "."
	}
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return errorResult("Directory not found: %s", shown)
	case err != nil:
		return errorResult("Cannot list %s: %v", shown, err)
	case !fi.IsDir():
		return errorResult("Not a directory: %s", shown)
	}
	l := lister{ctx: ctx, limit: in.limit, hidden: env.Hidden}
	if err := l.list(dir, "", in.depth); err != nil {
		return errorResult("Cannot list %s: %v", shown, err)
	}
	return lsResult(l.lines, l.cut, in.limit)
}

type lister struct {
	ctx    context.Context
	limit  int
	hidden func(string) bool // Env.Hidden: not descended into
	lines  []string
	cut    bool
}

// list appends dir's entries, directories first, each group sorted
// case-insensitively; subdirectories follow their line, indented.
func (l *lister) list(dir, indent string, depth int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if indent == "" {
			return err
		}
		l.lines = append(l.lines, indent+"[cannot read: "+err.Error()+"]")
		return nil
	}
	isDir := func(e os.DirEntry) bool {
		if e.IsDir() {
			return true
		}
		if e.Type()&os.ModeSymlink != 0 {
			fi, err := os.Stat(filepath.Join(dir, e.Name()))
			return err == nil && fi.IsDir()
		}
		return false
	}
	sort.SliceStable(entries, func(i, j int) bool {
		di, dj := isDir(entries[i]), isDir(entries[j])
		if di != dj {
			return di
		}
		return strings.ToLower(entries[i].Name()) < strings.ToLower(entries[j].Name())
	})
	for _, e := range entries {
		if l.ctx.Err() != nil {
			return l.ctx.Err()
		}
		if len(l.lines) >= l.limit {
			l.cut = true
			return nil
		}
		name := e.Name()
		path := filepath.Join(dir, name)
		line := indent + quoteName(name)
		symlink := e.Type()&os.ModeSymlink != 0
		dirEntry := isDir(e)
		if dirEntry {
			line += "/"
		} else if fi, err := os.Stat(path); err == nil {
			line += "  " + formatSize(fi.Size())
		}
		if symlink {
			if target, err := os.Readlink(path); err == nil {
				line += " -> " + quoteName(target)
			}
		}
		l.lines = append(l.lines, line)
		if dirEntry && !symlink && depth > 1 && !skippedDirs[name] && (l.hidden == nil || !l.hidden(path)) {
			if err := l.list(path, indent+"  ", depth-1); err != nil {
				return err
			}
		}
	}
	return nil
}
