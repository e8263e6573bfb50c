package builtin

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

const defaultFindLimit = 1000

type findTool struct{ readsOnly }

var findDefinition = define(tools.Definition{
	Name: "find",
	Description: "Find files by glob pattern: '*.go' matches file names at any depth, " +
		"'src/**/*_test.go' matches paths relative to the search directory. Sorted; skips .git, node_modules, vendor, caches and files ignored by .gitignore.",
},
	required("pattern", "string", "Glob pattern, e.g. '*_test.go' or 'pkg/**/*.go'"),
	optional("path", "string", "Directory to search (default: the document's directory)"),
	optional("limit", "integer", fmt.Sprintf("Maximum number of results (default %d)", defaultFindLimit)).with("minimum", 1),
)

func (findTool) Definition() tools.Definition { return findDefinition() }

func (findTool) Preview(in map[string]any) string {
	pattern, _ := tools.StringArg(in, "pattern")
	if p, _ := tools.StringArg(in, "path"); p != "" {
		return previewParts(pattern, "in "+p)
	}
	return pattern
}

func (findTool) RetrySafe(map[string]any) bool { return true }

func (findTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	in, bad, ok := readFindInput(call)
	if !ok {
		return bad
	}
	shownRoot := in.path
	root := env.ReadPath(shownRoot)
	if shownRoot == "" {
		shownRoot = "."
	}
	if fi, err := os.Stat(root); err != nil {
		return errorResult("Path not found: %s", shownRoot)
	} else if !fi.IsDir() {
		return errorResult("Not a directory: %s", shownRoot)
	}
	var found []string
	hidden := 0
	err := walkFiles(ctx, root, countHidden(env.Hidden, &hidden), func(path string, d fs.DirEntry) error {
		if globMatches(in.pattern, root, path) {
			found = append(found, displayPath(shownRoot, root, path))
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return errorResult("Search interrupted")
		}
		return errorResult("Search failed: %v", err)
	}
	res := findResult(found, in)
	if hidden > 0 && !res.IsError {
		res.Text += "\n\n" + hiddenNote("find", hidden)
	}
	return res
}

// findInput is find's input, the pattern checked; path is "" for the
// document's directory.
type findInput struct {
	pattern, path string
	limit         int
}

func readFindInput(call tools.Call) (findInput, tools.Result, bool) {
	in := findInput{limit: defaultFindLimit}
	in.pattern, _ = tools.StringArg(call.Input, "pattern")
	in.path, _ = tools.StringArg(call.Input, "path")
	if l, ok := tools.IntArg(call.Input, "limit"); ok && l > 0 {
		in.limit = l
	}
	if in.pattern == "" {
		return in, errorResult("No pattern provided"), false
	}
	in.pattern = strings.TrimPrefix(filepath.ToSlash(in.pattern), "./")
	if !doublestar.ValidatePattern(in.pattern) {
		return in, errorResult("Invalid glob: %s", in.pattern), false
	}
	return in, tools.Result{}, true
}

// findResult sorts what find found and cuts it at the limit.
func findResult(found []string, in findInput) tools.Result {
	if len(found) == 0 {
		return tools.Result{Text: "No files found matching pattern " + in.pattern}
	}
	sort.Strings(found)
	text := strings.Join(found, "\n")
	if len(found) > in.limit {
		text = strings.Join(found[:in.limit], "\n") +
			fmt.Sprintf("\n\n[Result limit %d reached (%d files match). Use limit=%d for more, or refine the pattern.]", in.limit, len(found), in.limit*2)
	}
	return tools.Result{Text: tools.DocumentText(text)}
}

func (findTool) RunRemote(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	in, bad, ok := readFindInput(call)
	if !ok {
		return bad
	}
	shownRoot := cmp.Or(in.path, ".")
	var found []string
	kind, err := walkRemote(ctx, env, shownRoot, target.ListOptions{}, func(e target.Entry) {
		if e.Kind == "f" && globMatches(in.pattern, "/r", "/r/"+e.Path) {
			found = append(found, displayPath(shownRoot, "/r", "/r/"+e.Path))
		}
	})
	if err != nil {
		return linkError(err)
	}
	if r, bad := treeError(kind, shownRoot, "Path not found", "search"); bad {
		return r
	}
	return findResult(found, in)
}
