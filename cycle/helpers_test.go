package cycle

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// policy is a fake policy for table tests: a decision per tool name
// (require_approval when absent). The real policy has its own tables in
// package approval; here only its answer matters.
type policy map[string]approval.Decision

func (p policy) facts(j map[string]JournalEntry) Facts {
	return Facts{
		Decide: func(u *chatdoc.ToolUse) approval.Verdict {
			d, ok := p[u.Name]
			if !ok {
				d = approval.RequireApproval
			}
			return approval.Verdict{Decision: d}
		},
		Journal: func(id string) JournalEntry { return j[id] },
	}
}

// call is one tool use of a test conversation.
type call struct{ id, name, input string }

// conversation builds a document: a question, an Assistant message with
// the calls, and a You message holding results (each a full block text,
// see placeholder), or no You message at all when results is nil.
func conversation(calls []call, results ...string) string {
	var b strings.Builder
	b.WriteString("@You:\nplease\n\n@Assistant:\n")
	for _, c := range calls {
		fmt.Fprintf(&b, "**Tool Use:** `%s` (`%s`)\n\n```json\n%s\n```\n\n", c.name, c.id, c.input)
	}
	if results != nil {
		b.WriteString("@You:\n")
		for _, r := range results {
			b.WriteString("\n" + r)
		}
	}
	return b.String()
}

// placeholder is a seed-form placeholder with a status and content.
func placeholder(id string, status chatdoc.Status, content string) string {
	if content != "" {
		content += "\n"
	}
	return fmt.Sprintf("**Tool Result:** `%s`\n\n```flemma:tool status=%s\n%s```\n", id, status, content)
}

// edit returns the document with old replaced by new exactly once, and
// records the change in the ledger as a client edit.
func edit(t *testing.T, l *Ledger, doc *chatdoc.Document, old, new string, autopilot bool) (*chatdoc.Document, bool) {
	t.Helper()
	text := doc.Text()
	i := strings.Index(text, old)
	if i < 0 || strings.Count(text, old) != 1 {
		t.Fatalf("edit: %q must occur exactly once in\n%s", old, text)
	}
	next := doc.Replace(chatdoc.Span{Start: i, End: i + len(old)}, new)
	wake := l.Observe(doc, next, chatdoc.Span{Start: i, End: i + len(new)}, autopilot)
	return next, wake
}

// apply applies edits built by the cycle, as a client would.
func apply(t *testing.T, doc *chatdoc.Document, edits []chatdoc.TextEdit, err error) *chatdoc.Document {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return chatdoc.Parse(chatdoc.ApplyEdits(doc.Text(), edits))
}

func statuses(m map[string]chatdoc.Status) string {
	var out []string
	for id, st := range m {
		out = append(out, id+"="+string(st))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func results(m map[string]Result) string {
	var out []string
	for id, r := range m {
		s := id + "=" + r.Text
		if r.IsError {
			s += " (error)"
		}
		if r.Record {
			s += " (recorded)"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, " | ")
}

func ids(m map[string]bool) string {
	var out []string
	for id := range m {
		out = append(out, id)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

var t0 = time.Date(2026, 11, 23, 7, 0, 1, 0, time.UTC)
