package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/chatls/chatls/chatdoc"
)

var severityWords = map[chatdoc.Severity]string{
	chatdoc.SeverityError: "error", chatdoc.SeverityWarning: "warning",
	chatdoc.SeverityInformation: "info", chatdoc.SeverityHint: "hint",
}

// runCheck implements `chatls check FILE…`: one `file:line:col: severity:
// message` line per diagnostic (1-based line, 1-based column in bytes, as Go
// tools and editors' quickfix lists expect); exit 1 if any is an error, 2 if
// a file can't be read.
func runCheck(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: chatls check FILE...")
		return 2
	}
	// A one-shot batch: garbage collection only costs time here, so it runs
	// only if the heap grows past a generous limit.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	exit := 0
	for _, name := range args {
		text, err := readWhole(name)
		if err != nil {
			fmt.Fprintf(stderr, "chatls check: %v\n", err)
			exit = 2
			continue
		}
		doc := chatdoc.ParseOnce(bytesAsString(text))
		for _, d := range documentDiagnostics(doc, name) {
			pos := doc.Lines.Position(d.Span.Start, chatdoc.UTF8)
			fmt.Fprintf(stdout, "%s:%d:%d: %s: %s\n", name, pos.Line+1, pos.Character+1, severityWords[d.Severity], d.Message)
			if d.Severity == chatdoc.SeverityError && exit == 0 {
				exit = 1
			}
		}
		if line := openCallsLine(doc, name); line != "" {
			fmt.Fprintln(stdout, line)
		}
	}
	return exit
}

// openCallsLine is the information line of a document whose tool calls
// wait: without a result, or with a placeholder not yet resolved. Not an
// error (exit 0): the conversation is simply not finished.
func openCallsLine(doc *chatdoc.Document, name string) string {
	unanswered, first := unansweredUses(doc.ToolUses(), doc)
	waiting := 0
	for _, r := range doc.ToolResults() {
		if r.IsPlaceholder() && doc.ToolResult(r.ID) == r {
			waiting++
			if first < 0 || r.HeaderSpan.Start < first {
				first = r.HeaderSpan.Start
			}
		}
	}
	if first < 0 {
		return ""
	}
	var parts []string
	if unanswered > 0 {
		parts = append(parts, plural(unanswered, "tool call has", "tool calls have")+" no result yet")
	}
	if waiting > 0 {
		parts = append(parts, plural(waiting, "placeholder waits", "placeholders wait")+" to be resolved")
	}
	pos := doc.Lines.Position(first, chatdoc.UTF8)
	return fmt.Sprintf("%s:%d:%d: info: %s (the next step in an editor, or chatls send, takes it on)", name, pos.Line+1, pos.Character+1, strings.Join(parts, "; "))
}

// unansweredUses counts the valid uses without a result and finds the
// first one's header (-1 if none): one lookup per use, 11,500 in the
// generated 10 MB document, so a long list is looked up in two halves on
// two cores.
func unansweredUses(uses []*chatdoc.ToolUse, doc *chatdoc.Document) (count, first int) {
	if len(uses) < 4096 || runtime.GOMAXPROCS(0) < 2 {
		return countUnanswered(uses, doc)
	}
	half := len(uses) / 2
	var laterCount, laterFirst int
	var wg sync.WaitGroup
	wg.Go(func() { laterCount, laterFirst = countUnanswered(uses[half:], doc) })
	count, first = countUnanswered(uses[:half], doc)
	wg.Wait()
	if first < 0 {
		first = laterFirst
	}
	return count + laterCount, first
}

func countUnanswered(uses []*chatdoc.ToolUse, doc *chatdoc.Document) (count, first int) {
	first = -1
	for _, u := range uses {
		if u.Valid() && doc.ToolResult(u.ID) == nil {
			count++
			if first < 0 {
				first = u.HeaderSpan.Start
			}
		}
	}
	return count, first
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// documentDiagnostics is the one set `chatls check` and `chatls parse
// --json` report for the file name: the parser's and tools' findings and
// missing file references, sorted by position.
func documentDiagnostics(doc *chatdoc.Document, name string) []chatdoc.Diagnostic {
	diags := append(slices.Clone(checkDiagnostics(doc)), chatdoc.FileRefDiagnostics(doc, fileExistsBeside(name))...)
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Span.Start < diags[j].Span.Start })
	return diags
}

// fileExistsBeside resolves references relative to the document's directory.
func fileExistsBeside(docPath string) func(string) bool {
	dir := filepath.Dir(docPath)
	home, _ := os.UserHomeDir()
	return func(ref string) bool {
		_, err := os.Stat(chatdoc.ResolveFileRef(dir, home, ref))
		return err == nil
	}
}

// bytesAsString views file contents as a string without copying them; the
// slice is never written after this.
func bytesAsString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
