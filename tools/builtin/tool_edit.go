package builtin

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

type editTool struct{}

var editDefinition = define(tools.Definition{
	Name: "edit",
	Description: "Edit a file by replacing exact text. oldText must match exactly one place in the file, " +
		"including whitespace and newlines.",
},
	required("path", "string", "Path to the file to edit (relative to the document's directory, or absolute)"),
	required("oldText", "string", "Exact text to find and replace (must occur exactly once)"),
	required("newText", "string", "New text to replace the old text with"),
)

func (editTool) Definition() tools.Definition { return editDefinition() }

func (editTool) Preview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	return path
}

func (editTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, oldText, newText, bad, ok := readEditInput(call)
	if !ok {
		return bad
	}
	root, rel, err := env.OpenWrite(shown)
	if err != nil {
		return errorResult("%v", err)
	}
	defer root.Close()
	if fi, err := root.Stat(rel); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return notRegularResult(shown, fi.Mode(), "edit only edits files")
	}
	data, err := root.ReadFile(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult("File not found: %s", shown)
	case errors.Is(err, fs.ErrPermission):
		return errorResult("Permission denied: %s", shown)
	case err != nil:
		return errorResult("Cannot read %s: %v", shown, err)
	}
	updated, failed, replaced := replaceOnce(string(data), oldText, newText, shown)
	if !replaced {
		return failed
	}
	if err := root.WriteFile(rel, []byte(updated), 0o644); err != nil {
		return errorResult("Cannot write %s: %v", shown, err)
	}
	return tools.Result{Text: "Successfully replaced text in " + shown + "."}
}

// readEditInput is edit's input, checked.
func readEditInput(call tools.Call) (shown, oldText, newText string, bad tools.Result, ok bool) {
	shown, _ = tools.StringArg(call.Input, "path")
	oldText, _ = tools.StringArg(call.Input, "oldText")
	newText, _ = tools.StringArg(call.Input, "newText")
	if shown == "" {
		return "", "", "", errorResult("No path provided"), false
	}
	if oldText == "" {
		return "", "", "", errorResult("oldText must not be empty; use write to create or overwrite %s", shown), false
	}
	return shown, oldText, newText, tools.Result{}, true
}

// replaceOnce replaces the one occurrence of oldText in content; ok false
// gives the result saying why it cannot.
func replaceOnce(content, oldText, newText, shown string) (string, tools.Result, bool) {
	// Models write LF; keep a CRLF file CRLF by matching with its line endings.
	if !strings.Contains(content, oldText) && strings.Contains(content, "\r\n") && !strings.Contains(oldText, "\r\n") {
		oldText = strings.ReplaceAll(oldText, "\n", "\r\n")
		newText = strings.ReplaceAll(newText, "\n", "\r\n")
	}
	switch n := strings.Count(content, oldText); {
	case n == 0:
		return "", errorResult("Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines.", shown), false
	case n > 1:
		return "", errorResult("Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", n, shown), false
	}
	if oldText == newText {
		return "", errorResult("No changes made to %s. The replacement produced identical content.", shown), false
	}
	at := strings.Index(content, oldText)
	return content[:at] + newText + content[at+len(oldText):], tools.Result{}, true
}

func (editTool) RunRemote(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, oldText, newText, bad, ok := readEditInput(call)
	if !ok {
		return bad
	}
	info, body, err := target.ReadFile(ctx, env.Target.Machine, env.Target.Root, shown)
	if err != nil {
		return linkError(err)
	}
	if r, bad := kindResult(info.Kind, shown, "edit only edits files"); bad {
		return r
	}
	data, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		return linkError(err)
	}
	updated, failed, replaced := replaceOnce(string(data), oldText, newText, shown)
	if !replaced {
		return failed
	}
	if r, bad := writeRemote(ctx, env, shown, updated); bad {
		return r
	}
	return tools.Result{Text: "Successfully replaced text in " + shown + "."}
}
