package tools

import (
	"bufio"
	"context"
	"io"
	"strconv"

	"github.com/chatls/chatls/tools/target"
)

// read, write and edit on a remote target: the same checks and texts as
// here, the bytes through cat on the target (content on stdin).

// linkError is the result of a call whose target could not be reached
// or whose connection dropped (the call is not repeated).
func linkError(err error) Result {
	return errorResult("%s", capitalize(err.Error()))
}

func readOnTarget(ctx context.Context, call Call, env Env) Result {
	shown, _ := StringArg(call.Input, "path")
	if shown == "" {
		return errorResult("No path provided")
	}
	info, body, err := target.ReadFile(ctx, env.Target.Machine, env.Target.Root, shown)
	if err != nil {
		return linkError(err)
	}
	if r, bad := kindResult(info.Kind, shown, "read only reads files"); bad {
		return r
	}
	defer body.Close()
	br := bufio.NewReaderSize(body, 32*1024)
	sniff, _ := br.Peek(8192)
	if looksBinary(sniff) {
		return binaryFileResult(shown, info.Size, sniff)
	}
	offset, _ := IntArg(call.Input, "offset")
	offset = max(offset, 1)
	userLimit, hasLimit := IntArg(call.Input, "limit")
	res := readLines(ctx, br, shown, env.Target.RemotePath(shown), offset, userLimit, hasLimit && userLimit > 0, env.Limits.orDefault())
	// The full file is on the target, not here: the note says how to read on.
	res.FullOutputPath = ""
	return res
}

// kindResult is the error for a path that is not a readable file.
func kindResult(kind, shown, what string) (Result, bool) {
	switch kind {
	case "file":
		return Result{}, false
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

func writeOnTarget(ctx context.Context, call Call, env Env) Result {
	shown, _ := StringArg(call.Input, "path")
	content, _ := StringArg(call.Input, "content")
	if shown == "" {
		return errorResult("No path provided")
	}
	if r, bad := writeRemote(ctx, env, shown, content); bad {
		return r
	}
	return Result{Text: "Successfully wrote " + strconv.Itoa(len(content)) + " bytes to " + shown}
}

// writeRemote writes and returns the error result when it failed.
func writeRemote(ctx context.Context, env Env, shown, content string) (Result, bool) {
	status, err := target.WriteFile(ctx, env.Target.Machine, env.Target.Root, shown, []byte(content))
	switch {
	case err != nil:
		return linkError(err), true
	case status == "ok":
		return Result{}, false
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

func editOnTarget(ctx context.Context, call Call, env Env) Result {
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
	return Result{Text: "Successfully replaced text in " + shown + "."}
}
