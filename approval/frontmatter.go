package approval

import (
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/frontmatter"
)

// FromFrontmatter turns a parsed document's frontmatter into the policy's
// inputs: its option changes (Sources.Frontmatter) and, when it could not
// be evaluated to the end, why (Sources.FrontmatterError). nil: no
// frontmatter. The evaluation is memoised (frontmatter.Evaluate).
func FromFrontmatter(fm *chatdoc.Frontmatter) (ops []FrontmatterOp, evalError string) {
	if fm == nil {
		return nil, ""
	}
	ev := frontmatter.Evaluate(fm)
	ops = make([]FrontmatterOp, 0, len(ev.Options))
	for _, op := range ev.Options {
		ops = append(ops, FrontmatterOp{Path: op.Path, Op: op.Op, Values: op.Values, Line: op.Line})
	}
	return ops, ev.Error
}
