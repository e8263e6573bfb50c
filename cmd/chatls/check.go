package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/internal/workers"
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
	// The tool set (configuration, built-ins) does not depend on the files:
	// it is ready by the time the first parse ends.
	go checkTools()
	exit := 0
	for _, name := range args {
		report, hasErrors, err := checkFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "chatls check: %v\n", err)
			exit = 2
			continue
		}
		stdout.Write(report)
		if hasErrors && exit == 0 {
			exit = 1
		}
	}
	return exit
}

// checkFile is the report on one file, from a mapping of it when it is
// large (openText).
func checkFile(name string) (report []byte, hasErrors bool, err error) {
	m, text, err := openText(name)
	if err != nil {
		return nil, false, err
	}
	if m == nil {
		report, hasErrors = reportOn(name, text)
		return report, hasErrors, nil
	}
	defer m.close()
	return checkMapped(name, m)
}

// checkMapped reports on the mapped text m, or on a copy read afresh when
// the file changed while it was checked: a save in place must not make the
// check fail.
func checkMapped(name string, m *mappedText) (report []byte, hasErrors bool, err error) {
	err = m.guard(func() { report, hasErrors = reportOn(name, m.data) })
	if err == nil && !m.changed() {
		return report, hasErrors, nil
	}
	text, err := readWhole(name)
	if err != nil {
		return nil, false, err
	}
	report, hasErrors = reportOn(name, text)
	return report, hasErrors, nil
}

// reportOn is check's lines for one file's text (owning none of its bytes)
// and whether any is an error.
func reportOn(name string, text []byte) (report []byte, hasErrors bool) {
	var out bytes.Buffer
	doc := chatdoc.ParseOnce(bytesAsString(text))
	// The open-calls line walks every part on one core: beside the tool
	// diagnostics it fills the time a core waits for the other.
	var diags []chatdoc.Diagnostic
	var openCalls string
	workers.Run(func() { diags = documentDiagnostics(doc, name) }, func() { openCalls = openCallsLine(doc, name) })
	for _, d := range diags {
		pos := doc.Lines.Position(d.Span.Start, chatdoc.UTF8)
		fmt.Fprintf(&out, "%s:%d:%d: %s: %s\n", name, pos.Line+1, pos.Character+1, severityWords[d.Severity], d.Message)
		hasErrors = hasErrors || d.Severity == chatdoc.SeverityError
	}
	if openCalls != "" {
		fmt.Fprintln(&out, openCalls)
	}
	return out.Bytes(), hasErrors
}

// openCallsLine is the information line of a document whose tool calls
// wait: without a result, or with a placeholder not yet resolved. Not an
// error (exit 0): the conversation is simply not finished.
func openCallsLine(doc *chatdoc.Document, name string) string {
	unanswered, firstUse := cycle.Unanswered(doc)
	first := -1
	if firstUse != nil {
		first = firstUse.HeaderSpan.Start
	}
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
