package builtin

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

// What the built-ins that reach a remote target share (RunRemote): read,
// write and edit have the same checks and texts as here, the bytes going
// through cat on the target (content on stdin); ls, find and grep walk one
// find on the target, which lists the tree (pruning the directories the
// local walk skips), with the local tools' inputs, texts, limits and order.
// Not read there: .gitignore files.

// linkError is the result of a call whose target could not be reached
// or whose connection dropped (the call is not repeated).
func linkError(err error) tools.Result {
	return errorResult("%s", capitalize(err.Error()))
}

// kindResult is the error for a path that is not a readable file.
func kindResult(kind, shown, what string) (tools.Result, bool) {
	switch kind {
	case "file":
		return tools.Result{}, false
	case "missing", "dangling":
		return errorResult("File not found: %s", shown), true
	case "denied":
		return errorResult("Permission denied: %s", shown), true
	case "dir":
		return errorResult("%s is a directory; use ls to list it", shown), true
	case "pipe":
		return errorResult("%s is not a regular file (named pipe); %s", shown, what), true
	case "device":
		return errorResult("%s is not a regular file (device); %s", shown, what), true
	case "socket":
		return errorResult("%s is not a regular file (socket); %s", shown, what), true
	case "noroot":
		return errorResult("The target's root directory does not exist"), true
	}
	return errorResult("%s is not a regular file (special file); %s", shown, what), true
}

// writeRemote writes and returns the error result when it failed.
func writeRemote(ctx context.Context, env tools.Env, shown, content string) (tools.Result, bool) {
	status, err := target.WriteFile(ctx, env.Target.Machine, env.Target.Root, shown, []byte(content))
	switch {
	case err != nil:
		return linkError(err), true
	case status == "ok":
		return tools.Result{}, false
	case status == "dir":
		return errorResult("%s is a directory", shown), true
	case status == "nodir":
		return errorResult("Cannot create the directory of %s", shown), true
	case status == "denied":
		return errorResult("Permission denied: %s", shown), true
	case status == "noroot":
		return errorResult("The target's root directory does not exist"), true
	}
	return kindResult(status, shown, "write only writes files")
}

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
func walkRemote(ctx context.Context, env tools.Env, shown string, opt target.ListOptions, visit func(target.Entry)) (string, error) {
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
func treeError(kind, shown, missing, verb string) (tools.Result, bool) {
	switch kind {
	case "dir":
		return tools.Result{}, false
	case "missing":
		return errorResult("%s: %s", missing, shown), true
	case "file":
		return errorResult("Not a directory: %s", shown), true
	}
	return errorResult("Cannot %s %s: %s", verb, shown, kind), true
}
