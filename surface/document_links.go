package surface

import (
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/fileuri"
)

// DocumentLinks turns `@./file` references into links to file:// URIs,
// resolved against the document's directory. The link covers the path, not
// the `@`. Without a directory (an unsaved buffer) relative paths have no
// target and no links are returned.
func DocumentLinks(doc *chatdoc.Document, enc chatdoc.Encoding, docDir string) []protocol.DocumentLink {
	links := []protocol.DocumentLink{}
	if doc == nil || docDir == "" {
		return links
	}
	for _, m := range doc.Messages() {
		if m == nil {
			continue
		}
		for _, ref := range m.FileRefs() {
			if ref == nil || ref.Path == "" {
				continue
			}
			span := ref.Span
			span.Start = min(max(span.Start, 0), doc.Len())
			span.End = min(max(span.End, span.Start), doc.Len())
			if span.Len() > 0 && doc.Slice(span.Start, span.Start+1) == "@" {
				span.Start++
			}
			links = append(links, protocol.DocumentLink{
				Range:   LSPRange(doc, span, enc),
				Target:  protocol.DocumentURI(fileURI(docDir, ref.Path)),
				Tooltip: "Open " + displayText(ref.Path),
			})
		}
	}
	return links
}

// fileURI is the URI of the file a reference names.
func fileURI(dir, path string) string { return fileuri.FromPath(refPath(dir, path)) }

// refPath is the file a reference names (SPEC §1: relative to the
// document's directory, `~/` from home, `//` absolute).
func refPath(dir, path string) string {
	home, _ := os.UserHomeDir()
	if p := chatdoc.ResolveFileRef(dir, home, path); p != "" {
		return p
	}
	return filepath.Clean(filepath.Join(dir, path))
}
