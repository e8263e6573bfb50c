package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

const defaultFindLimit = 1000

type findTool struct{}

// findDefinition is built once: Definition is called per validation and preview.
var findDefinition = sync.OnceValue(findTool{}.definition)

func (findTool) Definition() Definition { return findDefinition() }

func (findTool) Preview(in map[string]any) string {
	pattern, _ := StringArg(in, "pattern")
	if p, _ := StringArg(in, "path"); p != "" {
		return previewParts(pattern, "in "+p)
	}
	return pattern
}

func (findTool) RetrySafe(map[string]any) bool { return true }

func (findTool) RunRemote(ctx context.Context, call Call, env Env) Result {
	return findOnTarget(ctx, call, env)
}

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
	in, bad, ok := readFindInput(call)
	if !ok {
		return bad
	}
	shownRoot := in.path
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
