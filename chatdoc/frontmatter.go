package chatdoc

import (
	"strings"
)

// parseFrontmatter finds the frontmatter on line 1 (package frontmatter
// evaluates it). It returns where the body starts. An opener without a
// closer is no frontmatter.
func parseFrontmatter(text string) (*Frontmatter, int) {
	first, next := lineAt(text, 0)
	lang, ok := frontmatterOpener(first)
	if !ok {
		return nil, 0
	}
	codeStart := next
	for pos := next; pos < len(text); {
		line, after := lineAt(text, pos)
		if isFrontmatterCloser(line) {
			return &Frontmatter{Language: lang, Span: Span{0, after}, Opener: Span{0, len(first)},
				Code: text[codeStart:pos], CodeStart: codeStart}, after
		}
		pos = after
	}
	return nil, 0
}

// lineAt returns the line starting at pos (without its ending) and the offset
// after its ending.
func lineAt(text string, pos int) (string, int) {
	end, next := len(text), len(text)
	if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
		end, next = pos+i, pos+i+1
	}
	if end > pos && text[end-1] == '\r' {
		end--
	}
	return text[pos:end], next
}
