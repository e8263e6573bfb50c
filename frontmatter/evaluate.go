// Package frontmatter gives a document's frontmatter its meaning: it runs
// the code chatdoc found on line 1 (Lua in the sandbox of luavm, or JSON)
// into Flemma option changes, template variables and diagnostics, and
// builds the VM the document's templates run in. chatdoc only finds the
// block; the evaluation lives here so that parsing needs no Lua.
package frontmatter

import (
	"fmt"

	"github.com/chatls/chatls/chatdoc"
)

// Evaluation is what a frontmatter means. It is shared between every
// caller that evaluates the same code (Evaluate memoises it): never modify
// it.
type Evaluation struct {
	// Options are the flemma option changes in the order the script made them.
	Options []OptionOp
	// Vars are template variables (other globals / top-level JSON keys).
	Vars map[string]any
	// Error is non-empty when the frontmatter could not be evaluated
	// completely: an unsupported language, a syntax or runtime error, a
	// limit of the sandbox. Options then hold only what was recorded before
	// the failure, not the document's whole intent (a later removal or deny
	// may be missing), so a consumer must fail safe. The same text is the
	// first of Diagnostics.
	Error string
	// Diagnostics are the evaluation's findings, in document offsets.
	Diagnostics []chatdoc.Diagnostic
}

// OptionOp is one change to a flemma option, e.g. Path "tools.auto_approve",
// Op "remove", Values ["grep"]. Ops: "set" (replace the list or scalar with
// Values), "append", "prepend", "remove". Scalars are "set" with one value.
// Keys keep Flemma's spelling (auto_approve); consumers map them.
type OptionOp struct {
	Path   string
	Op     string
	Values []any
	Line   int // 0-based document line that made the change, for traces
}

// none is the evaluation of no frontmatter.
var none = &Evaluation{}

// Evaluate evaluates fm (nil: no frontmatter, an empty Evaluation). The
// result depends only on the language and the code and where it starts
// (the sandbox counts its own work, whatever the process does), so it is
// memoised by their hash: every snapshot, request and policy decision of a
// document asks again, and a Lua run costs milliseconds.
func Evaluate(fm *chatdoc.Frontmatter) *Evaluation {
	if fm == nil {
		return none
	}
	return memo.get(fm, evaluate)
}

// Diagnostics are the document's diagnostics with its frontmatter's first
// (they are at its top, so the order stays the document's), in a new slice
// the caller may append to.
func Diagnostics(doc *chatdoc.Document) []chatdoc.Diagnostic {
	ev, parsed := Evaluate(doc.Frontmatter), doc.Diagnostics()
	out := make([]chatdoc.Diagnostic, 0, len(ev.Diagnostics)+len(parsed))
	return append(append(out, ev.Diagnostics...), parsed...)
}

// source is the frontmatter being evaluated, with what it yields so far.
type source struct {
	Code      string
	codeStart int // offset of Code in the document
	Options   []OptionOp
	Vars      map[string]any
}

// evaluate runs fm. Chunk line k (1-based) of the code is document line k
// (0-based), since the opener is line 0.
func evaluate(fm *chatdoc.Frontmatter) *Evaluation {
	src := &source{Code: fm.Code, codeStart: fm.CodeStart}
	var diags []chatdoc.Diagnostic
	switch fm.Language {
	case "lua":
		diags = evaluateLua(src)
	case "json":
		diags = evaluateJSON(src)
	default:
		diags = []chatdoc.Diagnostic{diag(fm.Opener, chatdoc.SeverityError, chatdoc.CodeFrontmatterLanguage, "", messageLanguageFmt, fm.Language)}
	}
	ev := &Evaluation{Options: src.Options, Vars: src.Vars, Diagnostics: diags}
	if len(diags) > 0 {
		ev.Error = diags[0].Message
	}
	return ev
}

const messageLanguageFmt = "Unsupported frontmatter language: %s"

func diag(span chatdoc.Span, sev chatdoc.Severity, code, id, format string, args ...any) chatdoc.Diagnostic {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return chatdoc.Diagnostic{Span: span, Severity: sev, Code: code, Message: msg, ToolID: id}
}

// codeLineSpan is the span of chunk line `line` (1-based) of the code,
// without its line ending; out-of-range lines give the opener line.
func codeLineSpan(fm *source, line int) chatdoc.Span { return newCodeLines(fm).span(line) }
