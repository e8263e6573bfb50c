// Package lspcheck checks the invariants LSP answers must keep, for tests
// and fuzz targets: every range valid and ordered, every position inside
// the document (in the negotiated encoding), a symbol's selection inside
// its range, children inside their parents, selection-range parents
// holding their children. Editors reject whole answers that break them
// (VS Code drops an outline for one bad symbol).
package lspcheck

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
)

// Position reports a position that is not inside the document: past its
// last line, or past the end of its line in enc.
func Position(doc *chatdoc.Document, enc chatdoc.Encoding, p protocol.Position) error {
	want := chatdoc.Position{Line: int(p.Line), Character: int(p.Character)}
	back := doc.Lines.Position(doc.Lines.Offset(want, enc), enc)
	if back != want {
		return fmt.Errorf("position %d:%d is outside the document (the nearest is %d:%d)", p.Line, p.Character, back.Line, back.Character)
	}
	return nil
}

// Range reports a range whose ends are out of order or outside the document.
func Range(doc *chatdoc.Document, enc chatdoc.Encoding, r protocol.Range) error {
	if err := Position(doc, enc, r.Start); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if err := Position(doc, enc, r.End); err != nil {
		return fmt.Errorf("end: %w", err)
	}
	if after(r.Start, r.End) {
		return fmt.Errorf("range %s ends before it starts", show(r))
	}
	return nil
}

// Contains says whether outer holds inner.
func Contains(outer, inner protocol.Range) bool {
	return !after(outer.Start, inner.Start) && !after(inner.End, outer.End)
}

func after(a, b protocol.Position) bool {
	return a.Line > b.Line || a.Line == b.Line && a.Character > b.Character
}

func show(r protocol.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}

// Symbols checks an outline.
func Symbols(doc *chatdoc.Document, enc chatdoc.Encoding, syms []protocol.DocumentSymbol) error {
	var walk func([]protocol.DocumentSymbol, *protocol.DocumentSymbol) error
	walk = func(list []protocol.DocumentSymbol, parent *protocol.DocumentSymbol) error {
		for i := range list {
			s := &list[i]
			if s.Name == "" {
				return fmt.Errorf("a symbol without a name at %s", show(s.Range))
			}
			if err := Range(doc, enc, s.Range); err != nil {
				return fmt.Errorf("symbol %q: %w", s.Name, err)
			}
			if err := Range(doc, enc, s.SelectionRange); err != nil {
				return fmt.Errorf("symbol %q selection: %w", s.Name, err)
			}
			if !Contains(s.Range, s.SelectionRange) {
				return fmt.Errorf("symbol %q: selection %s outside its range %s", s.Name, show(s.SelectionRange), show(s.Range))
			}
			if parent != nil && !Contains(parent.Range, s.Range) {
				return fmt.Errorf("symbol %q %s outside its parent %q %s", s.Name, show(s.Range), parent.Name, show(parent.Range))
			}
			if err := walk(s.Children, s); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(syms, nil)
}

// Folds checks folding ranges: lines inside the document, start before end.
func Folds(doc *chatdoc.Document, folds []protocol.FoldingRange) error {
	lines := uint32(doc.Lines.LineCount())
	for _, f := range folds {
		if f.StartLine >= f.EndLine || f.EndLine >= lines {
			return fmt.Errorf("fold %d-%d (the document has %d lines)", f.StartLine, f.EndLine, lines)
		}
	}
	return nil
}

// SelectionRanges checks that each parent holds its child.
func SelectionRanges(doc *chatdoc.Document, enc chatdoc.Encoding, ranges []protocol.SelectionRange) error {
	for _, sr := range ranges {
		for r := &sr; r != nil; r = r.Parent {
			if err := Range(doc, enc, r.Range); err != nil {
				return fmt.Errorf("selection range: %w", err)
			}
			if r.Parent != nil && !Contains(r.Parent.Range, r.Range) {
				return fmt.Errorf("selection range %s outside its parent %s", show(r.Range), show(r.Parent.Range))
			}
		}
	}
	return nil
}

// Tokens checks semantic tokens: five integers each, non-empty, each on a
// line of the document and within it.
func Tokens(doc *chatdoc.Document, enc chatdoc.Encoding, data []uint32) error {
	if len(data)%5 != 0 {
		return fmt.Errorf("%d token integers, not a multiple of 5", len(data))
	}
	line, char := uint32(0), uint32(0)
	for k := 0; k < len(data); k += 5 {
		if data[k] > 0 {
			line, char = line+data[k], data[k+1]
		} else {
			char += data[k+1]
		}
		if data[k+2] == 0 {
			return fmt.Errorf("token %d is empty", k/5)
		}
		r := protocol.Range{Start: protocol.Position{Line: line, Character: char}, End: protocol.Position{Line: line, Character: char + data[k+2]}}
		if err := Range(doc, enc, r); err != nil {
			return fmt.Errorf("token %d: %w", k/5, err)
		}
	}
	return nil
}
