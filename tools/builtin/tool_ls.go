package builtin

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

const (
	defaultLsLimit = 500
	maxLsDepth     = 10
)

type lsTool struct{ readsOnly }

var lsDefinition = define(tools.Definition{
	Name: "ls",
	Description: "List a directory: directories first (with a trailing /), then files with their sizes. " +
		"maxDepth > 1 lists subdirectories indented below their parent (not into .git, node_modules, vendor…).",
},
	optional("path", "string", "Directory to list (default: the document's directory)"),
	optional("maxDepth", "integer", "How many levels to list (default 1)").with("minimum", 1),
	optional("limit", "integer", fmt.Sprintf("Maximum number of entries (default %d)", defaultLsLimit)).with("minimum", 1),
)

func (lsTool) Definition() tools.Definition { return lsDefinition() }

func (lsTool) Preview(in map[string]any) string {
	p, _ := tools.StringArg(in, "path")
	if p == "" {
		p = "."
	}
	if d, ok := tools.NumberArg(in, "maxDepth"); ok {
		return previewParts(p, "depth="+tools.FormatNumber(d))
	}
	return p
}

func (lsTool) RetrySafe(map[string]any) bool { return true }

func (lsTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	in := readLsInput(call)
	shown := in.path
	dir := env.ReadPath(shown)
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
			line += "  " + tools.FormatSize(fi.Size())
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

// lsInput is ls's input with its defaults; path is "" for the document's
// directory.
type lsInput struct {
	path         string
	depth, limit int
}

func readLsInput(call tools.Call) lsInput {
	in := lsInput{depth: 1, limit: defaultLsLimit}
	in.path, _ = tools.StringArg(call.Input, "path")
	if d, ok := tools.IntArg(call.Input, "maxDepth"); ok && d >= 1 {
		in.depth = min(d, maxLsDepth)
	}
	if l, ok := tools.IntArg(call.Input, "limit"); ok && l > 0 {
		in.limit = l
	}
	return in
}

// lsResult joins ls's lines with its notes.
func lsResult(lines []string, cut bool, limit int) tools.Result {
	if len(lines) == 0 {
		return tools.Result{Text: "(empty directory)"}
	}
	text := strings.Join(lines, "\n")
	if cut {
		text += fmt.Sprintf("\n\n[Entry limit %d reached. Use limit=%d for more.]", limit, limit*2)
	}
	return tools.Result{Text: tools.DocumentText(text)}
}

func (lsTool) RunRemote(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	in := readLsInput(call)
	shown := cmp.Or(in.path, ".")
	children := map[string][]target.Entry{}
	kind, err := walkRemote(ctx, env, shown, target.ListOptions{MaxDepth: in.depth, Sizes: true}, func(e target.Entry) {
		dir := path.Dir(e.Path)
		children[dir] = append(children[dir], e)
	})
	if err != nil {
		return linkError(err)
	}
	if r, bad := treeError(kind, shown, "Directory not found", "list"); bad {
		return r
	}
	isDir := func(e target.Entry) bool { return e.Kind == "d" || e.Kind == "L" }
	var lines []string
	cut := false
	var list func(dir, indent string)
	list = func(dir, indent string) {
		kids := children[dir]
		sort.SliceStable(kids, func(i, j int) bool {
			if di, dj := isDir(kids[i]), isDir(kids[j]); di != dj {
				return di
			}
			return strings.ToLower(path.Base(kids[i].Path)) < strings.ToLower(path.Base(kids[j].Path))
		})
		for _, e := range kids {
			if len(lines) >= in.limit {
				cut = true
				return
			}
			name := path.Base(e.Path)
			line := indent + quoteName(name)
			if isDir(e) {
				line += "/"
			} else if e.Kind == "f" || e.Kind == "o" || e.Kind == "l" && e.Size > 0 {
				line += "  " + tools.FormatSize(e.Size)
			}
			if e.Link != "" {
				line += " -> " + quoteName(e.Link)
			}
			lines = append(lines, line)
			if e.Kind == "d" && !skippedDirs[name] {
				list(e.Path, indent+"  ")
			}
		}
	}
	list(".", "")
	return lsResult(lines, cut, in.limit)
}
