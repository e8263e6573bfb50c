package tools

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The inputs and result texts of ls, find and grep, read the same way
// wherever the tool runs (here or on a target).

// lsInput is ls's input with its defaults; path is "" for the document's
// directory.
type lsInput struct {
	path         string
	depth, limit int
}

func readLsInput(call Call) lsInput {
	in := lsInput{depth: 1, limit: defaultLsLimit}
	in.path, _ = StringArg(call.Input, "path")
	if d, ok := IntArg(call.Input, "maxDepth"); ok && d >= 1 {
		in.depth = min(d, maxLsDepth)
	}
	if l, ok := IntArg(call.Input, "limit"); ok && l > 0 {
		in.limit = l
	}
	return in
}

// lsResult joins ls's lines with its notes.
func lsResult(lines []string, cut bool, limit int) Result {
	if len(lines) == 0 {
		return Result{Text: "(empty directory)"}
	}
	text := strings.Join(lines, "\n")
	if cut {
		text += fmt.Sprintf("\n\n[Entry limit %d reached. Use limit=%d for more.]", limit, limit*2)
	}
	return Result{Text: documentText(text)}
}

// findInput is find's input, the pattern checked; path is "" for the
// document's directory.
type findInput struct {
	pattern, path string
	limit         int
}

func readFindInput(call Call) (findInput, Result, bool) {
	in := findInput{limit: defaultFindLimit}
	in.pattern, _ = StringArg(call.Input, "pattern")
	in.path, _ = StringArg(call.Input, "path")
	if l, ok := IntArg(call.Input, "limit"); ok && l > 0 {
		in.limit = l
	}
	if in.pattern == "" {
		return in, errorResult("No pattern provided"), false
	}
	in.pattern = strings.TrimPrefix(filepath.ToSlash(in.pattern), "./")
	if !doublestar.ValidatePattern(in.pattern) {
		return in, errorResult("Invalid glob: %s", in.pattern), false
	}
	return in, Result{}, true
}

// findResult sorts what find found and cuts it at the limit.
func findResult(found []string, in findInput) Result {
	if len(found) == 0 {
		return Result{Text: "No files found matching pattern " + in.pattern}
	}
	sort.Strings(found)
	text := strings.Join(found, "\n")
	if len(found) > in.limit {
		text = strings.Join(found[:in.limit], "\n") +
			fmt.Sprintf("\n\n[Result limit %d reached (%d files match). Use limit=%d for more, or refine the pattern.]", in.limit, len(found), in.limit*2)
	}
	return Result{Text: documentText(text)}
}

// grepInput is grep's input, the pattern compiled and the glob checked.
type grepInput struct {
	matcher    *lineMatcher
	path, glob string
	limit      int
}

func readGrepInput(call Call) (grepInput, Result, bool) {
	in := grepInput{limit: defaultGrepLimit}
	pattern, _ := StringArg(call.Input, "pattern")
	in.path, _ = StringArg(call.Input, "path")
	in.glob, _ = StringArg(call.Input, "glob")
	if l, ok := IntArg(call.Input, "limit"); ok && l > 0 {
		in.limit = l
	}
	if pattern == "" {
		return in, errorResult("No pattern provided"), false
	}
	m, err := compileLineMatcher(pattern)
	if err != nil {
		return in, errorResult("Invalid regular expression: %v", err), false
	}
	if in.glob != "" && !doublestar.ValidatePattern(in.glob) {
		return in, errorResult("Invalid glob: %s", in.glob), false
	}
	in.matcher = m
	return in, Result{}, true
}

// grepResult is the text of what a search found.
func grepResult(found grepFound, limit int) Result {
	text := "No matches found."
	if len(found.matches) > 0 {
		text = strings.Join(found.matches, "\n")
	}
	if found.limitHit {
		text += fmt.Sprintf("\n\n[Match limit %d reached. Use limit=%d for more, or refine the pattern.]", limit, limit*2)
	}
	if len(found.tooLarge) > 0 {
		text += "\n\n" + tooLargeNote(found.tooLarge)
	}
	if found.hidden > 0 {
		text += "\n\n" + hiddenNote("grep", found.hidden)
	}
	return Result{Text: text}
}
