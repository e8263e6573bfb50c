package builtin

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/target"
)

type readTool struct{ readsOnly }

var readDefinition = define(tools.Definition{
	Name: "read",
	Description: "Read the contents of a text file. Output is truncated to 2000 lines or 50KB " +
		"(whichever is hit first). Use offset/limit for large files; continue with offset until complete.",
},
	required("path", "string", "Path to the file to read (relative to the document's directory, or absolute)"),
	optional("offset", "integer", "Line number to start reading from (1-indexed)").with("minimum", 1),
	optional("limit", "integer", "Maximum number of lines to read").with("minimum", 1),
)

func (readTool) Definition() tools.Definition { return readDefinition() }

func (readTool) Preview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	offset, hasOffset := tools.NumberArg(in, "offset")
	limit, hasLimit := tools.NumberArg(in, "limit")
	if !hasOffset && !hasLimit {
		return path
	}
	r := "+" + tools.FormatNumber(offset)
	if hasLimit {
		r += "," + tools.FormatNumber(limit)
	}
	return previewParts(path, r)
}

func (readTool) RetrySafe(map[string]any) bool { return true }

func (readTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, _ := tools.StringArg(call.Input, "path")
	if shown == "" {
		return errorResult("No path provided")
	}
	abs := env.ReadPath(shown)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorResult("File not found: %s", shown)
	case errors.Is(err, fs.ErrPermission):
		return errorResult("Permission denied: %s", shown)
	case err != nil:
		return errorResult("Cannot read %s: %v", shown, err)
	case fi.IsDir():
		return errorResult("%s is a directory; use ls to list it", shown)
	case !fi.Mode().IsRegular():
		return notRegularResult(shown, fi.Mode(), "read only reads files")
	}
	// O_NONBLOCK: should a FIFO have replaced the file since the Stat, the
	// open returns at once instead of waiting for a writer forever.
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return errorResult("Permission denied: %s", shown)
		}
		return errorResult("Cannot read %s: %v", shown, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return errorResult("Cannot read %s: %v", shown, err)
	} else if !fi.Mode().IsRegular() {
		return notRegularResult(shown, fi.Mode(), "read only reads files")
	}

	br := bufio.NewReaderSize(f, 32*1024)
	sniff, _ := br.Peek(8192)
	if looksBinary(sniff) {
		return binaryFileResult(shown, fi.Size(), sniff)
	}

	offset, _ := tools.IntArg(call.Input, "offset")
	offset = max(offset, 1)
	userLimit, hasLimit := tools.IntArg(call.Input, "limit")
	limits := env.Limits.OrDefault()
	return readLines(ctx, br, shown, abs, offset, userLimit, hasLimit && userLimit > 0, limits)
}

// readLines returns lines offset.. with head truncation, scanning the rest of
// the file only to count lines (memory stays bounded by the limits).
func readLines(ctx context.Context, br *bufio.Reader, shown, abs string, offset, userLimit int, hasLimit bool, limits tools.Limits) tools.Result {
	var out strings.Builder
	lineNo, taken := 0, 0
	cutByBytes, cutByLines, firstLineTooLong := false, false, false
	firstLineSize := 0
	full := false // stopped taking lines; only counting now
	for {
		if lineNo%4096 == 0 && ctx.Err() != nil {
			return errorResult("Reading %s was interrupted", shown)
		}
		line, err := br.ReadSlice('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it without keeping more than we can show.
			line = append([]byte(nil), line...)
			size := len(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				var more []byte
				more, err = br.ReadSlice('\n')
				size += len(more)
				if len(line) < limits.MaxBytes+1 {
					line = append(line, more[:min(len(more), limits.MaxBytes+1-len(line))]...)
				}
			}
			if lineNo+1 == offset {
				firstLineSize = size
			}
		} else if lineNo+1 == offset {
			firstLineSize = len(line)
		}
		lineNo++
		if !full && lineNo >= offset {
			switch {
			case hasLimit && taken >= userLimit:
				full = true
			case taken >= limits.MaxLines:
				full, cutByLines = true, true
			case out.Len()+len(line) > limits.MaxBytes:
				full, cutByBytes = true, true
				if taken == 0 {
					firstLineTooLong = true
				}
			default:
				out.Write(line)
				taken++
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			if err != io.EOF {
				return errorResult("Cannot read %s: %v", shown, err)
			}
			break
		}
	}
	total := lineNo
	if total == 0 && offset == 1 {
		return tools.Result{Text: "(empty file)"}
	}
	if offset > total {
		return errorResult("Offset %d is beyond end of file (%d lines total)", offset, total)
	}
	// SPEC §5's note, the same whatever cut the text (a single line over the
	// byte limit keeps pi's and Flemma's message above).
	if firstLineTooLong {
		return errorResult("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			offset, compactSize(int64(firstLineSize)), compactSize(int64(limits.MaxBytes)), offset, shellQuote(shown), limits.MaxBytes)
	}
	text := tools.DocumentText(strings.TrimSuffix(out.String(), "\n"))
	end := offset + taken - 1
	if end >= total {
		return tools.Result{Text: text}
	}
	text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Use offset=%d to continue.]", offset, end, total, end+1)
	if cutByBytes || cutByLines {
		// The file itself is the full output.
		return tools.Result{Text: text, Truncated: true, FullOutputPath: abs}
	}
	// The caller's limit: not a truncation.
	return tools.Result{Text: text}
}

// compactSize is pi's and Flemma's size format in read notes: 512B, 50.0KB, 1.5MB.
func compactSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}

// notRegularResult refuses FIFOs, devices and sockets: reading one could
// block forever or never end.
func notRegularResult(shown string, mode fs.FileMode, what string) tools.Result {
	kind := "special file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case mode&fs.ModeDevice != 0:
		kind = "device"
	case mode&fs.ModeSocket != 0:
		kind = "socket"
	}
	return errorResult("%s is not a regular file (%s); %s", shown, kind, what)
}

// looksBinary: a NUL byte or invalid UTF-8 in the first block, as git and grep decide.
func looksBinary(sniff []byte) bool {
	if bytes.IndexByte(sniff, 0) >= 0 {
		return true
	}
	// Ignore a rune cut at the end of the block.
	for i := 0; i < utf8.UTFMax && len(sniff) > 0 && !utf8.Valid(sniff); i++ {
		sniff = sniff[:len(sniff)-1]
	}
	return !utf8.Valid(sniff)
}

// binaryFileResult refers to the file instead of dumping it; `@./path` is
// Flemma's file reference, which attaches the file when the chat is sent.
func binaryFileResult(shown string, size int64, sniff []byte) tools.Result {
	ref := shown
	if !filepath.IsAbs(ref) && !strings.HasPrefix(ref, "./") && !strings.HasPrefix(ref, "../") && !strings.HasPrefix(ref, "~/") {
		ref = "./" + ref
	}
	mime := http.DetectContentType(sniff)
	return tools.Result{Text: fmt.Sprintf("[Binary file %s (%s, %s) not shown. Reference it as @%s to attach it.]", shown, tools.FormatSize(size), mime, ref)}
}

// shellQuote quotes s for a bash command line shown to the model.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (readTool) RunRemote(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, _ := tools.StringArg(call.Input, "path")
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
	offset, _ := tools.IntArg(call.Input, "offset")
	offset = max(offset, 1)
	userLimit, hasLimit := tools.IntArg(call.Input, "limit")
	res := readLines(ctx, br, shown, env.Target.RemotePath(shown), offset, userLimit, hasLimit && userLimit > 0, env.Limits.OrDefault())
	// The full file is on the target, not here: the note says how to read on.
	res.FullOutputPath = ""
	return res
}
