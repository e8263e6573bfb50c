package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

const defaultFindLimit = 1000

type findTool struct{}

// findDefinition is built once: Definition is called per validation and preview.
var findDefinition = sync.OnceValue(findTool{}.definition)

func (findTool) Definition() Definition { return findDefinition() }

func (findTool) definition() Definition {
	return Definition{
		Name: "find",
		Description: "Find files by glob pattern: '*.go' matches file names at any depth, " +
			"'src/**/*_test.go' matches paths relative to the search directory. Sorted; skips .git, node_modules, vendor, caches and files ignored by .gitignore.",
		Source: "builtin",
		Schema: strictSchema(
			required("pattern", "string", "Glob pattern, e.g. '*_test.go' or 'pkg/**/*.go'"),
			optional("path", "string", "Directory to search (default: the document's directory)"),
			optional("limit", "integer", fmt.Sprintf("Maximum number of results (default %d)", defaultFindLimit)).with("minimum", 1),
		),
	}
}

func (findTool) Run(ctx context.Context, call Call, env Env) Result {
	pattern, _ := stringArg(call.Input, "pattern")
	shownRoot, _ := stringArg(call.Input, "path")
	limit, ok := intArg(call.Input, "limit")
	if !ok || limit <= 0 {
		limit = defaultFindLimit
	}
	if pattern == "" {
		return errorResult("No pattern provided")
	}
	pattern = strings.TrimPrefix(filepath.ToSlash(pattern), "./")
	if !doublestar.ValidatePattern(pattern) {
		return errorResult("Invalid glob: %s", pattern)
	}
	root := readPath(env, shownRoot)
	if shownRoot == "" {
		shownRoot = "."
	}
	if fi, err := os.Stat(root); err != nil {
		return errorResult("Path not found: %s", shownRoot)
	} else if !fi.IsDir() {
		return errorResult("Not a directory: %s", shownRoot)
	}
	var found []string
	err := walkFiles(ctx, root, env.Hidden, func(path string, d fs.DirEntry) error {
		if globMatches(pattern, root, path) {
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
	if len(found) == 0 {
		return Result{Text: "No files found matching pattern " + pattern}
	}
	sort.Strings(found)
	text := ""
	if len(found) > limit {
		text = strings.Join(found[:limit], "\n") +
			fmt.Sprintf("\n\n[Result limit %d reached (%d files match). Use limit=%d for more, or refine the pattern.]", limit, len(found), limit*2)
	} else {
		text = strings.Join(found, "\n")
	}
	return Result{Text: documentText(text)}
}
