package surface

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/workers"
	"github.com/chatls/chatls/tools"
)

// Stable diagnostic codes produced by this package (docs/editor-surface.md).
const (
	CodeUnknownTool     = "unknown-tool"
	CodeOldToolName     = "old-tool-name" // `server:tool` (Flemma 0.11)
	CodeSchemaViolation = "schema-violation"
)

// ToolInfo is what the surface needs from the tool registry; *tools.Registry
// satisfies it (its Lookup returns the tool, whose Definition is at hand).
type ToolInfo interface {
	Lookup(name string) (tools.Tool, bool)
	// ValidateText validates input, whose JSON text is text (verdicts may
	// be remembered by the text: a keystroke re-validates only what changed).
	ValidateText(name, text string, decode func(string) map[string]any) []tools.ValidationError
	Suggest(name string) string
}

// ToolDiagnosticsParallel reports tool uses that name no registered tool
// and inputs that break their tool's schema, computed afresh on every core
// in contiguous runs of the document's tool uses (the diagnostics keep its
// order): for `chatls check`, which validates each input once. Parse
// errors are chatdoc's; calls whose input did not parse are skipped here
// (they already carry a diagnostic). The server asks a
// ToolDiagnosticsCache, which redoes only what an edit touched.
func ToolDiagnosticsParallel(doc *chatdoc.Document, reg ToolInfo) []chatdoc.Diagnostic {
	diags := []chatdoc.Diagnostic{}
	if doc == nil || reg == nil {
		return diags
	}
	uses := doc.ToolUses()
	n := min(runtime.GOMAXPROCS(0), len(uses)/usesPerWorker)
	if n <= 1 {
		return useDiagnostics(diags, doc, uses, reg)
	}
	parts := make([][]chatdoc.Diagnostic, n)
	runs := make([]func(), n)
	for w := range runs {
		lo, hi := w*len(uses)/n, (w+1)*len(uses)/n
		runs[w] = func() { parts[w] = useDiagnostics(nil, doc, uses[lo:hi], reg) }
	}
	workers.Run(runs...)
	for _, p := range parts {
		diags = append(diags, p...)
	}
	return diags
}

// usesPerWorker is the least work worth a goroutine of its own: a few
// hundred validations, ~1 ms.
const usesPerWorker = 512

// useDiagnostics appends the diagnostics of uses (placed) to diags.
func useDiagnostics(diags []chatdoc.Diagnostic, doc *chatdoc.Document, uses []*chatdoc.ToolUse, reg ToolInfo) []chatdoc.Diagnostic {
	for _, use := range uses {
		diags = appendUseDiagnostics(diags, doc, use, -1, reg)
	}
	return diags
}

// appendUseDiagnostics appends the diagnostics of one tool use. index >= 0
// says use is as stored (a chatdoc.Part's), and the placed node is fetched
// for a finding; -1 says use is placed.
func appendUseDiagnostics(diags []chatdoc.Diagnostic, doc *chatdoc.Document, use *chatdoc.ToolUse, index int, reg ToolInfo) []chatdoc.Diagnostic {
	if use == nil || use.Name == "" {
		return diags
	}
	placed := func() *chatdoc.ToolUse {
		if index >= 0 {
			return doc.ToolUseAt(index)
		}
		return use
	}
	if _, known := reg.Lookup(use.Name); !known {
		return append(diags, unknownToolDiagnostic(placed(), reg.Suggest(use.Name)))
	}
	if strings.Contains(use.Name, ":") {
		// Flemma 0.11's `server:tool`: read as is, offered in 0.12's form.
		diags = append(diags, chatdoc.Diagnostic{Span: placed().NameSpan(), Severity: chatdoc.SeverityHint, Code: CodeOldToolName,
			Message: fmt.Sprintf("Flemma 0.12 writes this tool `%s`", strings.ReplaceAll(use.Name, ":", "."))})
	}
	if !use.Valid() {
		return diags
	}
	if errs := reg.ValidateText(use.Name, use.ToolInputText(), chatdoc.DecodeInput); len(errs) > 0 {
		diags = append(diags, schemaDiagnostics(doc, placed(), errs)...)
	}
	return diags
}

// maxSchemaDiagnostics bounds what one call reports: a model that sends
// 50,000 unknown keys gets the first few and a count, not 50,000 squiggles.
const maxSchemaDiagnostics = 20

// schemaDiagnostics turns a call's validation errors into diagnostics,
// locating all of them in one pass over its input, at most
// maxSchemaDiagnostics of them, then "… and N more".
func schemaDiagnostics(doc *chatdoc.Document, use *chatdoc.ToolUse, errs []tools.ValidationError) []chatdoc.Diagnostic {
	if len(errs) == 0 {
		return nil
	}
	var locate *jsonLocator
	var content chatdoc.Span
	if use.Fence != nil {
		text := spanWindow(doc, use.Fence.ContentSpan)
		content = text.clamp(use.Fence.ContentSpan)
		locate = newJSONLocator(text.str(content.Start, content.End))
	}
	whole := inputSpan(doc, use)
	var out []chatdoc.Diagnostic
	for i, verr := range errs {
		if i == maxSchemaDiagnostics {
			out = append(out, chatdoc.Diagnostic{Span: whole, Severity: chatdoc.SeverityWarning, Code: CodeSchemaViolation, ToolID: use.ID,
				Message: fmt.Sprintf("Invalid input for `%s`: … and %d more", use.Name, len(errs)-maxSchemaDiagnostics)})
			break
		}
		span := whole
		if len(verr.Path) > 0 && locate != nil {
			if start, end, ok := locate.span(verr.Path); ok {
				span = chatdoc.Span{Start: content.Start + start, End: content.Start + end}
			}
		}
		out = append(out, chatdoc.Diagnostic{
			Span:     span,
			Severity: chatdoc.SeverityWarning,
			Code:     CodeSchemaViolation,
			Message:  fmt.Sprintf("Invalid input for `%s`: %s", use.Name, verr.Message),
			ToolID:   use.ID,
		})
	}
	return out
}

// unknownToolDiagnostic texts:
//
//	Unknown tool `reed`; did you mean `read`?
//	Unknown tool `slack.channels_list`: no MCP server `slack` provides it (`slack:…` too)
//	Unknown tool `frobnicate`
func unknownToolDiagnostic(use *chatdoc.ToolUse, suggestion string) chatdoc.Diagnostic {
	msg := fmt.Sprintf("Unknown tool `%s`", use.Name)
	server, _, isMCP := strings.Cut(strings.Replace(use.Name, ":", ".", 1), ".")
	switch {
	case suggestion != "" && suggestion != use.Name:
		msg += fmt.Sprintf("; did you mean `%s`?", suggestion)
	case isMCP:
		msg += fmt.Sprintf(": no MCP server `%s` provides it", server)
	}
	return chatdoc.Diagnostic{
		Span:     use.NameSpan(),
		Severity: chatdoc.SeverityWarning,
		Code:     CodeUnknownTool,
		Message:  msg,
		ToolID:   use.ID,
	}
}

// inputSpan is the JSON text inside the tool-use fence without surrounding
// whitespace, or the header when there is no fence.
func inputSpan(doc *chatdoc.Document, use *chatdoc.ToolUse) chatdoc.Span {
	if use.Fence == nil {
		return use.HeaderSpan
	}
	text := spanWindow(doc, use.Fence.ContentSpan)
	s := text.trimSpan(use.Fence.ContentSpan)
	if s.Len() == 0 {
		return use.Fence.OpenerSpan()
	}
	return s
}
