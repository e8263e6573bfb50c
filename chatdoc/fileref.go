package chatdoc

import (
	"strings"
)

// fileRefs records `@./path` and `@../path` references in You messages. The
// reference starts at the line start or after whitespace or "(", and ends at
// whitespace; trailing punctuation is not part of the path (as in Flemma).
func (s *bodyScanner) fileRefs(line string, lineStart int) {
	if s.role() != "You" || strings.IndexByte(line, '@') < 0 {
		return
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '@' || (i > 0 && !isSpace(line[i-1]) && line[i-1] != '(') {
			continue
		}
		rest := line[i+1:]
		if !strings.HasPrefix(rest, "./") && !strings.HasPrefix(rest, "../") {
			continue
		}
		n := 0
		for n < len(rest) && !isSpace(rest[n]) {
			n++
		}
		path := strings.TrimRight(rest[:n], ".,;:!?)]}'\"`")
		if path == "." || path == ".." || strings.HasSuffix(path, "/") && strings.Trim(path, "./") == "" {
			continue
		}
		start := lineStart + i
		s.cur.FileRefs = append(s.cur.FileRefs, &FileRef{Span: Span{start, start + 1 + len(path)}, Path: path})
		i += n
	}
}

// FileRefDiagnostics flags references whose file is missing. exists is asked
// with each reference's path as written (relative to the document's
// directory); chatdoc itself never touches the file system.
func FileRefDiagnostics(d *Document, exists func(path string) bool) []Diagnostic {
	var out []Diagnostic
	for _, m := range d.Messages {
		for _, ref := range m.FileRefs {
			if !exists(ref.Path) {
				out = append(out, diag(ref.Span, SeverityWarning, CodeMissingFileReference, "",
					"File not found: %s", ref.Path))
			}
		}
	}
	return out
}
