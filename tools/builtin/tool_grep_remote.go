package builtin

import (
	"cmp"
	"context"
	"io"
	"slices"

	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

func (grepTool) RunRemote(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
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
func grepRemoteFile(ctx context.Context, env tools.Env, in grepInput, shown string) (f fileResult, failed tools.Result, ok bool) {
	f.path = "."
	info, body, err := target.ReadFile(ctx, env.Target.Machine, env.Target.Root, shown)
	if err != nil {
		return f, linkError(err), false
	}
	if info.Kind != "file" {
		return f, tools.Result{}, true
	}
	defer body.Close()
	if info.Size > grepFileMax {
		f.tooLarge = true
		return f, tools.Result{}, true
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return f, linkError(err), false
	}
	f.lines = grepData(in.matcher, data, displayPath(shown, "/r", "/r"), in.limit)
	return f, tools.Result{}, true
}
