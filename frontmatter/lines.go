package frontmatter

import (
	"sort"
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// codeLines maps offsets in frontmatter code to lines and back in
// O(log n), so reporting many options or errors stays linear overall.
type codeLines struct {
	fm  *source
	nls []int // offsets of the '\n' bytes of fm.Code
}

func newCodeLines(fm *source) *codeLines {
	c := &codeLines{fm: fm}
	for i := 0; ; {
		j := strings.IndexByte(fm.Code[i:], '\n')
		if j < 0 {
			return c
		}
		c.nls = append(c.nls, i+j)
		i += j + 1
	}
}

// lineOf is the 1-based code line of offset.
func (c *codeLines) lineOf(offset int) int {
	offset = max(0, min(offset, len(c.fm.Code)))
	return sort.SearchInts(c.nls, offset) + 1
}

// span is the span in the document of code line `line` (1-based) without
// its line ending and trailing spaces; out-of-range lines give the opener.
func (c *codeLines) span(line int) chatdoc.Span {
	code := c.fm.Code
	opener := chatdoc.Span{Start: 0, End: c.fm.codeStart - 1}
	if line < 1 || line > len(c.nls)+1 {
		return opener
	}
	start := 0
	if line > 1 {
		start = c.nls[line-2] + 1
	}
	end := len(code)
	if line <= len(c.nls) {
		end = c.nls[line-1]
	}
	if start == len(code) {
		return opener
	}
	end = start + len(trimSpaceRight(code[start:end]))
	return chatdoc.Span{Start: c.fm.codeStart + start, End: c.fm.codeStart + end}
}

// trimSpaceRight drops the spaces chatdoc's lines ignore at their end.
func trimSpaceRight(s string) string { return strings.TrimRight(s, " \t\r\v\f") }
