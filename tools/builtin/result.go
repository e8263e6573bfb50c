package builtin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chatls/chatls/tools"
)

// The texts of results every built-in shares.

func errorResult(format string, args ...any) tools.Result {
	return tools.Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// appendParagraph adds p to text after a blank line.
func appendParagraph(text, p string) string {
	if text == "" {
		return p
	}
	return text + "\n\n" + p
}

// capitalize starts an error's message with a capital, as a result's text.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-32) + s[1:]
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// previewParts joins the parts of a preview that are not empty.
func previewParts(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "  ")
}
