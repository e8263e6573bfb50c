package tools

import (
	"cmp"
	"context"
	"io"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/chatls/chatls/tools/target"
)

// ls, find and grep on a remote target: one find on the target lists the
// tree (pruning the directories the local walk skips); inputs, texts,
// limits and order are the local tools'. Not read there: .gitignore files.

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

// walkRemote lists shown on the target, calling visit for each entry the
// policy does not hide (Env.Hidden), and says what shown is: "dir",
// "file", "missing" or why it cannot be listed.
func walkRemote(ctx context.Context, env Env, shown string, opt target.ListOptions, visit func(target.Entry)) (string, error) {
	t := env.Target
	opt.Prune = prunedNames()
	base := t.RemotePath(shown)
	return target.List(ctx, t.Machine, t.Root, shown, opt, func(e target.Entry) error {
		if env.Hidden == nil || !env.Hidden(path.Join(base, e.Path)) {
			visit(e)
		}
		return nil
	})
}

// treeError is the result for a search root that is not a directory
// (kind from walkRemote), with the local tools' texts.
func treeError(kind, shown, missing, verb string) (Result, bool) {
	switch kind {
	case "dir":
		return Result{}, false
	case "missing":
		return errorResult("%s: %s", missing, shown), true
	case "file":
		return errorResult("Not a directory: %s", shown), true
	}
	return errorResult("Cannot %s %s: %s", verb, shown, kind), true
}

func lsOnTarget(ctx context.Context, call Call, env Env) Result {
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
	return lsResult(lines, cut, in.limit)
}

func findOnTarget(ctx context.Context, call Call, env Env) Result {
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

func grepOnTarget(ctx context.Context, call Call, env Env) Result {
	in, bad, ok := readGrepInput(call)
	if !ok {
		return bad
	}
	shownRoot := cmp.Or(in.path, ".")
	// Matched as they arrive, so memory holds matches, not contents; the
	// walk's order is restored after.
	var files []fileResult
	opt := target.ListOptions{Contents: true, MaxContent: grepFileMax}
	kind, err := walkRemote(ctx, env, shownRoot, opt, func(e target.Entry) {
		if e.Kind != "f" || in.glob != "" && !globMatches(in.glob, "/r", "/r/"+e.Path) {
			return
		}
		shown := displayPath(shownRoot, "/r", "/r/"+e.Path)
		if e.TooLarge {
			files = append(files, fileResult{path: e.Path, tooLarge: true})
		} else if lines := grepData(in.matcher, e.Content, shown, in.limit); len(lines) > 0 {
			files = append(files, fileResult{path: e.Path, lines: lines})
		}
	})
	if err != nil {
		return linkError(err)
	}
	switch kind {
	case "file":
		f, failed, ok := grepRemoteFile(ctx, env, in, shownRoot)
		if !ok {
			return failed
		}
		files = append(files, f)
	case "missing":
		return errorResult("Path not found: %s", shownRoot)
	case "dir":
	default:
		return errorResult("Cannot search %s: %s", shownRoot, kind)
	}
	slices.SortFunc(files, func(a, b fileResult) int { return walkLess(a.path, b.path) })
	var found grepFound
	for _, f := range files {
		if found.limitHit {
			break // as the local search: nothing after the limit counts
		}
		if f.tooLarge {
			found.tooLarge = append(found.tooLarge, displayPath(shownRoot, "/r", "/r/"+f.path))
		}
		for _, l := range f.lines {
			if len(found.matches) == in.limit {
				found.limitHit = true
				break
			}
			found.matches = append(found.matches, l)
		}
	}
	return grepResult(found, in.limit)
}

// grepRemoteFile searches the file shown, as the local grep does when
// its path is a file; ok false gives the link's error.
func grepRemoteFile(ctx context.Context, env Env, in grepInput, shown string) (f fileResult, failed Result, ok bool) {
	f.path = "."
	info, body, err := target.ReadFile(ctx, env.Target.Machine, env.Target.Root, shown)
	if err != nil {
		return f, linkError(err), false
	}
	if info.Kind != "file" {
		return f, Result{}, true
	}
	defer body.Close()
	if info.Size > grepFileMax {
		f.tooLarge = true
		return f, Result{}, true
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return f, linkError(err), false
	}
	f.lines = grepData(in.matcher, data, displayPath(shown, "/r", "/r"), in.limit)
	return f, Result{}, true
}
