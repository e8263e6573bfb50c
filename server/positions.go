package server

import (
	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/surface"
)

// The server's conversions between LSP positions and the document's: the
// way out is surface's (surface.LSPRange), the counting chatdoc's
// (chatdoc.LineIndex); the encoding (utf-16, utf-8 or utf-32) is
// negotiated in initialize.

// lspRange is the LSP range of a byte span of doc.
func lspRange(doc *chatdoc.Document, span chatdoc.Span, enc chatdoc.Encoding) protocol.Range {
	return surface.LSPRange(doc, span, enc)
}

// docRange is an LSP range in chatdoc's terms (resolved against a snapshot
// with doc.Span).
func docRange(r protocol.Range) chatdoc.Range {
	return chatdoc.Range{Start: docPosition(r.Start), End: docPosition(r.End)}
}

func docPosition(p protocol.Position) chatdoc.Position {
	return chatdoc.Position{Line: int(p.Line), Character: int(p.Character)}
}

// offsetAt is the byte offset of an LSP position in doc.
func offsetAt(doc *chatdoc.Document, p protocol.Position, enc chatdoc.Encoding) int {
	return doc.Lines.Offset(docPosition(p), enc)
}

// spanOf is the byte span of an LSP range in doc.
func spanOf(doc *chatdoc.Document, r protocol.Range, enc chatdoc.Encoding) chatdoc.Span {
	return doc.Span(docRange(r), enc)
}

// lspEdits are chatdoc edits on the wire, for the snapshot they were built on.
func lspEdits(doc *chatdoc.Document, edits []chatdoc.TextEdit, enc chatdoc.Encoding) []lspext.TextEdit {
	out := make([]lspext.TextEdit, 0, len(edits))
	for _, e := range edits {
		out = append(out, lspext.TextEdit{Range: lspRange(doc, e.Span, enc), NewText: e.NewText})
	}
	return out
}
