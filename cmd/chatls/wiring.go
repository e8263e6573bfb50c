package main

import (
	"fmt"
	"os"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/surface"
	"github.com/chatls/chatls/tools"
)

// The subcommands are written against small package variables so each could
// be tested alone; this file connects them to the real parser and registry.
func init() {
	frontmatterOps = documentFrontmatterOps
	checkDiagnostics = func(doc *chatdoc.Document) []chatdoc.Diagnostic {
		reg := tools.NewRegistry(tools.Builtins(tools.BuiltinOptions{}))
		return append(append([]chatdoc.Diagnostic(nil), doc.Diagnostics...), surface.ToolDiagnostics(doc, reg)...)
	}
}

// documentFrontmatterOps parses a .chat file and returns its frontmatter's
// option changes for `chatls policy check --file`.
func documentFrontmatterOps(path string) ([]approval.FrontmatterOp, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	doc := chatdoc.Parse(string(data))
	if doc.Frontmatter == nil {
		return nil, nil
	}
	ops := make([]approval.FrontmatterOp, 0, len(doc.Frontmatter.Options))
	for _, op := range doc.Frontmatter.Options {
		ops = append(ops, approval.FrontmatterOp{Path: op.Path, Op: op.Op, Values: op.Values, Line: op.Line})
	}
	return ops, nil
}
