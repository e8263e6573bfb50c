package tools

import "fmt"

// The runner's and the targets' own texts (tools/builtin has its own).

func errorResult(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

func appendParagraph(text, p string) string {
	if text == "" {
		return p
	}
	return text + "\n\n" + p
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-32) + s[1:]
}
