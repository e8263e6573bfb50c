package chatdoc

import (
	"strings"
)

// parseFrontmatter finds the frontmatter on line 1 and evaluates it. It
// returns where the body starts. An opener without a closer is no frontmatter.
func parseFrontmatter(text string) (*Frontmatter, int, []Diagnostic) {
	first, next := lineAt(text, 0)
	lang, ok := frontmatterOpener(first)
	if !ok {
		return nil, 0, nil
	}
	codeStart := next
	for pos := next; pos < len(text); {
		line, after := lineAt(text, pos)
		if isFrontmatterCloser(line) {
			fm := &Frontmatter{Language: lang, Span: Span{0, after}, Code: text[codeStart:pos], codeStart: codeStart}
			return fm, after, evaluateFrontmatter(fm, Span{0, len(first)})
		}
		pos = after
	}
	return nil, 0, nil
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

// evaluateFrontmatter fills Options and Vars. Chunk line k (1-based) of the
// code is document line k (0-based), since the opener is line 0.
func evaluateFrontmatter(fm *Frontmatter, opener Span) []Diagnostic {
	var diags []Diagnostic
	switch fm.Language {
	case "lua":
		diags = evaluateLua(fm)
	case "json":
		diags = evaluateJSON(fm)
	default:
		diags = []Diagnostic{diag(opener, SeverityError, CodeFrontmatterLanguage, "", messageFrontmatterLangFmt, fm.Language)}
	}
	if len(diags) > 0 {
		fm.Error = diags[0].Message
	}
	return diags
}

// codeLineSpan is the span of chunk line `line` (1-based) of the code,
// without its line ending; out-of-range lines give the opener line.
func codeLineSpan(fm *Frontmatter, line int) Span { return newCodeLines(fm).span(line) }
