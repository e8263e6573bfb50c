package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/chatls/chatls/tools/target"
)

// ls, find and grep on a remote target: one find on the target lists the
// tree (pruning the directories the local walk skips); the texts, limits
// and order are the local tools'. Not read there: .gitignore files.

func prunedNames() []string {
	names := make([]string, 0, len(skippedDirs))
	for n := range skippedDirs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// walkLess orders paths as a directory walk meets them: component by
// component, so "a/b" comes before "a.txt".
func walkLess(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// listRemote lists shown on the target; kind says what shown is.
func listRemote(ctx context.Context, env Env, shown string, opt target.ListOptions) (kind string, entries []target.Entry, err error) {
	t := env.Target
	opt.Prune = prunedNames()
	base := remotePath(t, shown)
	kind, err = target.List(ctx, t.Machine, t.Root, shown, opt, func(e target.Entry) error {
		if env.Hidden != nil && env.Hidden(path.Join(base, e.Path)) {
			return nil
		}
		entries = append(entries, e)
		return nil
	})
	return kind, entries, err
}

func lsOnTarget(ctx context.Context, call Call, env Env) Result {
	shown, _ := stringArg(call.Input, "path")
	depth, ok := intArg(call.Input, "maxDepth")
	if !ok || depth < 1 {
		depth = 1
	}
	depth = min(depth, maxLsDepth)
	limit, ok := intArg(call.Input, "limit")
	if !ok || limit <= 0 {
		limit = defaultLsLimit
	}
	if shown == "" {
		shown = "."
	}
	kind, entries, err := listRemote(ctx, env, shown, target.ListOptions{MaxDepth: depth, Sizes: true})
	switch {
	case err != nil:
		return linkError(env.Target, err)
	case kind == "missing":
		return errorResult("Directory not found: %s", shown)
	case kind == "file":
		return errorResult("Not a directory: %s", shown)
	case kind != "dir":
		return errorResult("Cannot list %s: %s", shown, kind)
	}
	children := map[string][]target.Entry{}
	for _, e := range entries {
		dir := path.Dir(e.Path)
		children[dir] = append(children[dir], e)
	}
	var lines []string
	cut := false
	var list func(dir, indent string)
	list = func(dir, indent string) {
		kids := children[dir]
		isDir := func(e target.Entry) bool { return e.Kind == "d" || e.Kind == "L" }
		sort.SliceStable(kids, func(i, j int) bool {
			di, dj := isDir(kids[i]), isDir(kids[j])
			if di != dj {
				return di
			}
			return strings.ToLower(path.Base(kids[i].Path)) < strings.ToLower(path.Base(kids[j].Path))
		})
		for _, e := range kids {
			if len(lines) >= limit {
				cut = true
				return
			}
			name := path.Base(e.Path)
			line := indent + quoteName(name)
			if isDir(e) {
				line += "/"
			} else if e.Kind == "f" || e.Kind == "l" && e.Size > 0 || e.Kind == "o" {
				line += "  " + formatSize(e.Size)
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
	if len(lines) == 0 {
		return Result{Text: "(empty directory)"}
	}
	text := strings.Join(lines, "\n")
	if cut {
		text += fmt.Sprintf("\n\n[Entry limit %d reached. Use limit=%d for more.]", limit, limit*2)
	}
	return Result{Text: documentText(text)}
}

func findOnTarget(ctx context.Context, call Call, env Env) Result {
	pattern, _ := stringArg(call.Input, "pattern")
	shownRoot, _ := stringArg(call.Input, "path")
	limit, ok := intArg(call.Input, "limit")
	if !ok || limit <= 0 {
		limit = defaultFindLimit
	}
	if pattern == "" {
		return errorResult("No pattern provided")
	}
	pattern = strings.TrimPrefix(pattern, "./")
	if shownRoot == "" {
		shownRoot = "."
	}
	kind, entries, err := listRemote(ctx, env, shownRoot, target.ListOptions{})
	switch {
	case err != nil:
		return linkError(env.Target, err)
	case kind == "missing":
		return errorResult("Path not found: %s", shownRoot)
	case kind == "file":
		return errorResult("Not a directory: %s", shownRoot)
	case kind != "dir":
		return errorResult("Cannot search %s: %s", shownRoot, kind)
	}
	var found []string
	for _, e := range entries {
		if e.Kind == "f" && globMatches(pattern, "/r", "/r/"+e.Path) {
			found = append(found, displayPath(shownRoot, "/r", "/r/"+e.Path))
		}
	}
	if len(found) == 0 {
		return Result{Text: "No files found matching pattern " + pattern}
	}
	sort.Strings(found)
	text := strings.Join(found, "\n")
	if len(found) > limit {
		text = strings.Join(found[:limit], "\n") +
			fmt.Sprintf("\n\n[Result limit %d reached (%d files match). Use limit=%d for more, or refine the pattern.]", limit, len(found), limit*2)
	}
	return Result{Text: documentText(text)}
}

func grepOnTarget(ctx context.Context, call Call, env Env) Result {
	pattern, _ := stringArg(call.Input, "pattern")
	shownRoot, _ := stringArg(call.Input, "path")
	glob, _ := stringArg(call.Input, "glob")
	limit, ok := intArg(call.Input, "limit")
	if !ok || limit <= 0 {
		limit = defaultGrepLimit
	}
	if pattern == "" {
		return errorResult("No pattern provided")
	}
	m, err := compileLineMatcher(pattern)
	if err != nil {
		return errorResult("Invalid regular expression: %v", err)
	}
	if shownRoot == "" {
		shownRoot = "."
	}
	type fileMatches struct {
		path  string
		lines []string
	}
	var files []fileMatches
	var tooLarge []string
	// Matched as they arrive, so memory holds matches, not contents.
	kind, err := target.List(ctx, env.Target.Machine, env.Target.Root, shownRoot,
		target.ListOptions{Contents: true, MaxContent: grepFileMax, Prune: prunedNames()}, func(e target.Entry) error {
			if e.Kind != "f" || glob != "" && !globMatches(glob, "/r", "/r/"+e.Path) {
				return nil
			}
			if env.Hidden != nil && env.Hidden(path.Join(remotePath(env.Target, shownRoot), e.Path)) {
				return nil
			}
			shown := displayPath(shownRoot, "/r", "/r/"+e.Path)
			if e.TooLarge {
				tooLarge = append(tooLarge, shown)
				return nil
			}
			data := e.Content
			if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 || !m.mayMatch(data) {
				return nil
			}
			if lines := grepData(m, data, shown, limit); len(lines) > 0 {
				files = append(files, fileMatches{e.Path, lines})
			}
			return nil
		})
	switch {
	case err != nil:
		return linkError(env.Target, err)
	case kind == "missing":
		return errorResult("Path not found: %s", shownRoot)
	case kind == "file":
		info, body, err := target.ReadFile(ctx, env.Target.Machine, env.Target.Root, shownRoot)
		if err != nil {
			return linkError(env.Target, err)
		}
		if info.Kind == "file" {
			data, _ := io.ReadAll(io.LimitReader(body, grepFileMax+1))
			body.Close()
			if lines := grepData(m, data, shownRoot, limit); len(lines) > 0 && m.mayMatch(data) {
				files = append(files, fileMatches{".", lines})
			}
		}
	case kind != "dir":
		return errorResult("Cannot search %s: %s", shownRoot, kind)
	}
	slices.SortFunc(files, func(a, b fileMatches) int { return walkLess(a.path, b.path) })
	var matches []string
	limitHit := false
	for _, f := range files {
		for _, l := range f.lines {
			if len(matches) == limit {
				limitHit = true
				break
			}
			matches = append(matches, l)
		}
	}
	text := "No matches found."
	if len(matches) > 0 {
		text = strings.Join(matches, "\n")
	}
	if limitHit {
		text += fmt.Sprintf("\n\n[Match limit %d reached. Use limit=%d for more, or refine the pattern.]", limit, limit*2)
	}
	if len(tooLarge) > 0 {
		sort.Slice(tooLarge, func(i, j int) bool { return walkLess(tooLarge[i], tooLarge[j]) < 0 })
		text += "\n\n" + tooLargeNote(tooLarge)
	}
	return Result{Text: text}
}
