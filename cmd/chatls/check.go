package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
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
		text, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "chatls check: %v\n", err)
			exit = 2
			continue
		}
		doc := chatdoc.Parse(bytesAsString(text))
		for _, d := range documentDiagnostics(doc, name) {
			pos := doc.Lines.Position(d.Span.Start, chatdoc.UTF8)
			fmt.Fprintf(stdout, "%s:%d:%d: %s: %s\n", name, pos.Line+1, pos.Character+1, severityWords[d.Severity], d.Message)
			if d.Severity == chatdoc.SeverityError && exit == 0 {
				exit = 1
			}
		}
	}
	return exit
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
