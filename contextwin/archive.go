package contextwin

import (
	"strings"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/docfile"
)

// ArchiveName is the path of the next archive beside the document at
// docPath: NAME.archive-N.chat with NAME the document's name without
// `.chat` and N the first that exists says is free (from 1). The caller
// creates it exclusively (O_EXCL) and asks again when another process took
// the name meanwhile. An unsaved document ("") gets "untitled".
func ArchiveName(docPath string, exists func(path string) bool) string {
	return docfile.SiblingName(docPath, "archive", exists)
}

// archiveHead is how an archive begins: the document's frontmatter,
// verbatim, then a blank line. The moved messages keep the options and
// template variables they were written under, so that the archive parses
// and reads (and, opened and sent, behaves) as they did in the document.
func archiveHead(doc *chatdoc.Document) string {
	fm := doc.Frontmatter
	if fm == nil {
		return ""
	}
	head := doc.Slice(fm.Span.Start, fm.Span.End)
	if !strings.HasSuffix(head, "\n") {
		head += doc.Newline
	}
	return head + doc.Newline
}
