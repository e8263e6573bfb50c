package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/chatls/chatls/tools"
)

const (
	defaultGrepLimit = 100
	grepLineMax      = 500 // characters of a matching line shown
	grepFileMax      = 64 << 20
)

type grepTool struct{ readsOnly }

var grepDefinition = define(tools.Definition{
	Name: "grep",
	Description: "Search file contents with a regular expression (RE2 syntax; (?i) for case-insensitive). " +
		"Returns file:line:text. Skips .git, node_modules, vendor, caches, files ignored by .gitignore and binary files.",
},
	required("pattern", "string", "Regular expression to search for"),
	optional("path", "string", "Directory or file to search (default: the document's directory)"),
	optional("glob", "string", "Only search files matching this glob, e.g. '*.go' or 'src/**/*.ts'"),
	optional("limit", "integer", fmt.Sprintf("Maximum number of matches (default %d)", defaultGrepLimit)).with("minimum", 1),
)

func (grepTool) Definition() tools.Definition { return grepDefinition() }

func (grepTool) Preview(in map[string]any) string {
	pattern, _ := tools.StringArg(in, "pattern")
	path, _ := tools.StringArg(in, "path")
	glob, _ := tools.StringArg(in, "glob")
	return previewParts("/"+pattern+"/", path, glob)
}

func (grepTool) RetrySafe(map[string]any) bool { return true }

func (grepTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	in, bad, ok := readGrepInput(call)
	if !ok {
		return bad
	}
	shownRoot := in.path
	root := env.ReadPath(shownRoot)
	if shownRoot == "" {
		shownRoot = "."
	}
	if _, err := os.Stat(root); err != nil {
		return errorResult("Path not found: %s", shownRoot)
	}
	found, err := grepTree(ctx, in.matcher, root, shownRoot, in.glob, in.limit, env)
	if err != nil && !errors.Is(err, errLimitReached) {
		if ctx.Err() != nil {
			return errorResult("Search interrupted")
		}
		return errorResult("Search failed: %v", err)
	}
	return grepResult(found, in.limit)
}

// tooLargeNote names files grep did not search because of their size.
func tooLargeNote(paths []string) string {
	const shown = 10
	list := strings.Join(paths[:min(len(paths), shown)], ", ")
	if len(paths) > shown {
		list += ", …"
	}
	noun := "files"
	if len(paths) == 1 {
		noun = "file"
	}
	return fmt.Sprintf("[Not searched: %d %s over %s: %s. Use bash to search them.]", len(paths), noun, tools.FormatSize(grepFileMax), list)
}

// lineMatcher matches one line (without its line ending) and, as a fast
// filter, a whole file: most files have no match, and one regexp scan over
// the file is much faster than one per line.
type lineMatcher struct {
	line *regexp.Regexp
	// file is the pattern in multi-line mode, so ^ and $ match at line
	// boundaries; a file it does not match has no matching line. nil when
	// that does not hold (\A, \z: they would mean the file's ends).
	file *regexp.Regexp
	// endAnchor: $ cannot see a line's end before "\r\n", so files with
	// CR bytes skip the filter.
	endAnchor bool
}

func compileLineMatcher(pattern string) (*lineMatcher, error) {
	line, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{line: line}
	multi := "(?m:" + pattern + ")"
	re, err := syntax.Parse(multi, syntax.Perl)
	if err != nil {
		return m, nil
	}
	// In multi-line mode ^ and $ are line anchors; what stays a text anchor
	// (\A, \z, (?-m)^) would mean the file's ends, so no filter then.
	textAnchor := false
	walkRegexp(re, func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpBeginText, syntax.OpEndText:
			textAnchor = true
		case syntax.OpEndLine:
			m.endAnchor = true
		}
	})
	if !textAnchor {
		m.file, _ = regexp.Compile(multi)
	}
	return m, nil
}

func walkRegexp(re *syntax.Regexp, f func(*syntax.Regexp)) {
	f(re)
	for _, sub := range re.Sub {
		walkRegexp(sub, f)
	}
}

// mayMatch is the whole-file filter: false means no line can match.
func (m *lineMatcher) mayMatch(data []byte) bool {
	if m.file == nil || (m.endAnchor && bytes.IndexByte(data, '\r') >= 0) {
		return true
	}
	return m.file.Match(data)
}

var errLimitReached = errors.New("limit reached")

// grepFound is what a search found.
type grepFound struct {
	matches  []string
	limitHit bool
	tooLarge []string // files over grepFileMax, not searched
	hidden   int      // paths the policy hides (Env.Hidden), skipped
}

// grepTree searches files in parallel but reports them in walk order, so the
// output is deterministic; it stops once limit matches are known. progress,
// when set, gets each newest match as the last output line.
func grepTree(ctx context.Context, m *lineMatcher, root, shownRoot, glob string, limit int, env tools.Env) (grepFound, error) {
	progress := env.Progress
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type job struct {
		path string
		out  chan fileResult
	}
	jobs := make(chan job, 256)
	ordered := make(chan chan fileResult, 256)
	var wg sync.WaitGroup
	workers := max(runtime.GOMAXPROCS(0), 1)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for j := range jobs {
				var res fileResult
				if ctx.Err() == nil {
					res, buf = grepFile(m, j.path, shownRoot, root, buf, limit)
				}
				j.out <- res
			}
		}()
	}
	walkErr := make(chan error, 1)
	hidden := 0 // read after the walk ends (<-walkErr)
	go func() {
		defer close(ordered)
		defer close(jobs)
		walkErr <- walkFiles(ctx, root, countHidden(env.Hidden, &hidden), func(path string, d fs.DirEntry) error {
			if glob != "" && !globMatches(glob, root, path) {
				return nil
			}
			j := job{path: path, out: make(chan fileResult, 1)}
			select {
			case ordered <- j.out:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				j.out <- fileResult{} // the reader is already waiting on this slot
				return ctx.Err()
			}
			return nil
		})
	}()

	var found grepFound
	for out := range ordered {
		res := <-out
		if found.limitHit {
			continue
		}
		if res.tooLarge {
			found.tooLarge = append(found.tooLarge, displayPath(shownRoot, root, res.path))
		}
		for _, l := range res.lines {
			if len(found.matches) == limit {
				found.limitHit = true
				cancel()
				break
			}
			found.matches = append(found.matches, l)
		}
		if progress != nil && len(res.lines) > 0 && !found.limitHit {
			progress(tools.Progress{LastLine: found.matches[len(found.matches)-1]})
		}
	}
	wg.Wait()
	err := <-walkErr
	found.hidden = hidden
	if found.limitHit {
		return found, nil
	}
	return found, err
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

// fileResult is what grepFile found in one file.
type fileResult struct {
	path     string
	lines    []string
	tooLarge bool
}

// grepFile returns up to limit `file:line:text` matches of one file. It reads
// the file whole (reusing buf) and first checks for any match, which is the
// common "no" case and runs at the regexp engine's literal-scan speed. Lines
// are matched without their line ending ("\n" or "\r\n"), so $ works in
// CRLF files too. Only regular files are read (O_NONBLOCK: a FIFO swapped in
// since the walk cannot block the open).
func grepFile(m *lineMatcher, path, shownRoot, root string, buf []byte, limit int) (fileResult, []byte) {
	res := fileResult{path: path}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return res, buf
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return res, buf
	}
	if fi.Size() > grepFileMax {
		res.tooLarge = true
		return res, buf
	}
	size := int(fi.Size())
	if cap(buf) < size+1 {
		buf = make([]byte, 0, size+1)
	}
	buf = buf[:size]
	n, _ := readFull(f, buf)
	res.lines = grepData(m, buf[:n], displayPath(shownRoot, root, path), limit)
	return res, buf
}

// grepData returns up to limit `shown:line:text` matches in a file's
// bytes: none for a binary file (a NUL in its first block), and a file
// the whole-file filter rules out is not split into lines.
func grepData(m *lineMatcher, data []byte, shown string, limit int) []string {
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 || !m.mayMatch(data) {
		return nil
	}
	var lines []string
	lineNo := 0
	for len(data) > 0 && len(lines) < limit {
		lineNo++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if m.line.Match(line) {
			text := tools.DocumentText(string(line))
			if utf8Len := len([]rune(text)); utf8Len > grepLineMax {
				text = string([]rune(text)[:grepLineMax]) + "… [truncated]"
			}
			lines = append(lines, fmt.Sprintf("%s:%d:%s", shown, lineNo, text))
		}
	}
	return lines
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

// grepInput is grep's input, the pattern compiled and the glob checked.
type grepInput struct {
	matcher    *lineMatcher
	path, glob string
	limit      int
}

func readGrepInput(call tools.Call) (grepInput, tools.Result, bool) {
	in := grepInput{limit: defaultGrepLimit}
	pattern, _ := tools.StringArg(call.Input, "pattern")
	in.path, _ = tools.StringArg(call.Input, "path")
	in.glob, _ = tools.StringArg(call.Input, "glob")
	if l, ok := tools.IntArg(call.Input, "limit"); ok && l > 0 {
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
	return in, tools.Result{}, true
}

// grepResult is the text of what a search found.
func grepResult(found grepFound, limit int) tools.Result {
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
	return tools.Result{Text: text}
}
