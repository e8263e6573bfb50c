package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

const (
	defaultGrepLimit = 100
	grepLineMax      = 500 // characters of a matching line shown
	grepFileMax      = 64 << 20
)

type grepTool struct{}

// grepDefinition is built once: Definition is called per validation and preview.
var grepDefinition = sync.OnceValue(grepTool{}.definition)

func (grepTool) Definition() Definition { return grepDefinition() }

func (grepTool) definition() Definition {
	return Definition{
		Name: "grep",
		Description: "Search file contents with a regular expression (RE2 syntax; (?i) for case-insensitive). " +
			"Returns file:line:text. Skips .git, node_modules, vendor, build caches and binary files.",
		Source: "builtin",
		Schema: strictSchema(
			required("pattern", "string", "Regular expression to search for"),
			optional("path", "string", "Directory or file to search (default: the document's directory)"),
			optional("glob", "string", "Only search files matching this glob, e.g. '*.go' or 'src/**/*.ts'"),
			optional("limit", "integer", fmt.Sprintf("Maximum number of matches (default %d)", defaultGrepLimit)).with("minimum", 1),
		),
	}
}

func (grepTool) Run(ctx context.Context, call Call, env Env) Result {
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
	re, err := regexp.Compile(pattern)
	if err != nil {
		return errorResult("Invalid regular expression: %v", err)
	}
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return errorResult("Invalid glob: %s", glob)
	}
	root := resolvePath(env, shownRoot)
	if shownRoot == "" {
		shownRoot = "."
	}
	if _, err := os.Stat(root); err != nil {
		return errorResult("Path not found: %s", shownRoot)
	}
	matches, limitHit, err := grepTree(ctx, re, root, shownRoot, glob, limit)
	if err != nil && !errors.Is(err, errLimitReached) {
		if ctx.Err() != nil {
			return errorResult("Search interrupted")
		}
		return errorResult("Search failed: %v", err)
	}
	if len(matches) == 0 {
		return Result{Text: "No matches found."}
	}
	text := strings.Join(matches, "\n")
	if limitHit {
		text += fmt.Sprintf("\n\n[Match limit %d reached. Use limit=%d for more, or refine the pattern.]", limit, limit*2)
	}
	return Result{Text: text}
}

var errLimitReached = errors.New("limit reached")

// grepTree searches files in parallel but reports them in walk order, so the
// output is deterministic; it stops once limit matches are known.
func grepTree(ctx context.Context, re *regexp.Regexp, root, shownRoot, glob string, limit int) ([]string, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type job struct {
		path string
		out  chan []string
	}
	jobs := make(chan job, 256)
	ordered := make(chan chan []string, 256)
	var wg sync.WaitGroup
	workers := max(runtime.GOMAXPROCS(0), 1)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for j := range jobs {
				var lines []string
				if ctx.Err() == nil {
					lines, buf = grepFile(re, j.path, displayPath(shownRoot, root, j.path), buf, limit)
				}
				j.out <- lines
			}
		}()
	}
	walkErr := make(chan error, 1)
	go func() {
		defer close(ordered)
		defer close(jobs)
		walkErr <- walkFiles(ctx, root, func(path string, d fs.DirEntry) error {
			if glob != "" && !globMatches(glob, root, path) {
				return nil
			}
			j := job{path: path, out: make(chan []string, 1)}
			select {
			case ordered <- j.out:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				j.out <- nil // the reader is already waiting on this slot
				return ctx.Err()
			}
			return nil
		})
	}()

	var matches []string
	limitHit := false
	for out := range ordered {
		lines := <-out
		if limitHit {
			continue
		}
		for _, l := range lines {
			if len(matches) == limit {
				limitHit = true
				cancel()
				break
			}
			matches = append(matches, l)
		}
	}
	wg.Wait()
	err := <-walkErr
	if limitHit {
		return matches, true, nil
	}
	return matches, false, err
}

// globMatches matches a glob without "/" against the base name (like
// `grep --include`), otherwise against the path relative to root.
func globMatches(glob, root, path string) bool {
	if !strings.Contains(glob, "/") {
		ok, _ := doublestar.Match(glob, filepath.Base(path))
		return ok
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	ok, _ := doublestar.Match(glob, filepath.ToSlash(rel))
	return ok
}

// grepFile returns up to limit `file:line:text` matches of one file. It reads
// the file whole (reusing buf) and first checks for any match, which is the
// common "no" case and runs at the regexp engine's literal-scan speed.
func grepFile(re *regexp.Regexp, path, shown string, buf []byte, limit int) ([]string, []byte) {
	f, err := os.Open(path)
	if err != nil {
		return nil, buf
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > grepFileMax {
		return nil, buf
	}
	size := int(fi.Size())
	if cap(buf) < size+1 {
		buf = make([]byte, 0, size+1)
	}
	buf = buf[:size]
	n, _ := readFull(f, buf)
	data := buf[:n]
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 || !re.Match(data) {
		return nil, buf
	}
	var out []string
	lineNo := 0
	for len(data) > 0 && len(out) < limit {
		lineNo++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if re.Match(line) {
			text := documentText(string(bytes.TrimRight(line, "\r")))
			if utf8Len := len([]rune(text)); utf8Len > grepLineMax {
				text = string([]rune(text)[:grepLineMax]) + "… [truncated]"
			}
			out = append(out, fmt.Sprintf("%s:%d:%s", shown, lineNo, text))
		}
	}
	return out, buf
}

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
