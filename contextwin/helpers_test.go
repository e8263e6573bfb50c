package contextwin

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// Builders of documents for the tests, in the shapes chatls writes.

func use(id string) string { return bash(id, "ls "+id) }

func bash(id, command string) string {
	return "**Tool Use:** `bash` (`" + id + "`)\n\n```json\n{\"command\":\"" + command + "\"}\n```\n"
}

func result(id, content string) string {
	return "**Tool Result:** `" + id + "`\n\n" + chatdoc.FenceFor(content) + "\n" + content + "\n" + chatdoc.FenceFor(content) + "\n"
}

func pending(id string) string {
	return "**Tool Result:** `" + id + "`\n\n```flemma:tool status=pending\n```\n"
}

func msg(role string, parts ...string) string {
	body := strings.TrimRight(strings.Join(parts, "\n"), "\n")
	if body == "" {
		return "@" + role + ":\n\n"
	}
	return "@" + role + ":\n" + body + "\n\n"
}

func doc(msgs ...string) string { return strings.Join(msgs, "") }

// keepUpTo is the keepTokens that makes message k the last one whose
// start leaves that many tokens after it: the naive cut, by size alone.
func keepUpTo(t *testing.T, d *chatdoc.Document, k int) int {
	t.Helper()
	keep := (d.Len() - d.MessageSpan(k).Start) / bytesPerToken
	if got := newLayout(d).keepFrom(keep); got != k {
		t.Fatalf("keepUpTo(%d): keepFrom is %d; make message %d longer", k, got, k)
	}
	return keep
}

func mustParse(t *testing.T, text string) *chatdoc.Document {
	t.Helper()
	d := chatdoc.Parse(text)
	for _, diag := range d.Diagnostics() {
		if diag.Severity == chatdoc.SeverityError {
			t.Fatalf("test document has an error: %s\n%s", diag.Message, text)
		}
	}
	return d
}
