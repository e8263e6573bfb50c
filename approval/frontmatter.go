package approval

import "github.com/chatls/chatls/chatdoc"

// FromFrontmatter turns a parsed document's frontmatter into the policy's
// inputs: its option changes (Sources.Frontmatter) and, when it could not
// be evaluated to the end, why (Sources.FrontmatterError). nil: no
// frontmatter.
func FromFrontmatter(fm *chatdoc.Frontmatter) (ops []FrontmatterOp, evalError string) {
	if fm == nil {
		return nil, ""
	}
	ops = make([]FrontmatterOp, 0, len(fm.Options))
	for _, op := range fm.Options {
		ops = append(ops, FrontmatterOp{Path: op.Path, Op: op.Op, Values: op.Values, Line: op.Line})
	}
	return ops, fm.Error
}
