package chatdoc

import (
	"fmt"
	"strings"
)

// BackgroundResult finishes the placeholder of id as the result of a call
// running in the background as job: “**Tool Result:** `ID` (job=JOB)“
// with JobRunning's text.
func BackgroundResult(d *Document, id, job string) ([]TextEdit, error) {
	r := d.ToolResult(id)
	if r == nil {
		return nil, fmt.Errorf("no tool result with ID %s", id)
	}
	text := resultBlock(id, "job="+job, JobRunning(job), false, d.Newline, d.HeaderGap())
	if r.Span.Len() > 0 && d.Slice(r.Span.End-1, r.Span.End) == "\n" {
		text += d.Newline
	}
	return []TextEdit{{Span: r.Span, NewText: text}}, nil
}

// AddJobResult adds job's result block to the last @You: message, after
// its tool and job results and before the user's own text there (a new
// @You: when the last message is not one).
func AddJobResult(d *Document, job, content string, isError bool) []TextEdit {
	nl := d.Newline
	block := jobBlock(job, content, isError, nl, d.HeaderGap())
	n := d.MessageCount()
	if n == 0 || d.Message(n-1).Role != "You" {
		at := d.Len()
		text := ""
		if at > 0 && !strings.HasSuffix(d.Slice(at-1, at), "\n") {
			text = nl
		}
		if at > 0 {
			text += nl // a blank line before the marker
		}
		return []TextEdit{{Span: Span{Start: at, End: at}, NewText: text + "@You:" + nl + nl + block + nl}}
	}
	m := d.Message(n - 1)
	at := d.lineAfter(m.MarkerSpan.End)
	for _, r := range m.ToolResults {
		at = max(at, r.Span.End)
	}
	for _, j := range d.jobResultsIn(m) {
		at = max(at, j.Span.End)
	}
	if at > 0 && at <= d.Len() && d.Slice(at-1, at) != "\n" {
		at = d.lineAfter(d.lineEnd(at, d.Len())) // to the start of the next line
	}
	text := nl + block + nl
	if rest := d.Slice(at, d.lineEnd(at, d.Len())); strings.TrimSpace(rest) != "" {
		text += nl // the user's text keeps a blank line before it
	}
	if at == d.Len() && at > 0 && d.Slice(at-1, at) != "\n" {
		text = nl + text
	}
	return []TextEdit{{Span: Span{Start: at, End: at}, NewText: text}}
}

// LoseJob is the recovery of a job that ended with the chatls that ran
// it, as Flemma writes it: the call's header reads `(error job=JOB)` and a
// Job Result says JobLost.
func LoseJob(d *Document, id, job string) ([]TextEdit, error) {
	r := d.ToolResult(id)
	if r == nil || r.IsPlaceholder() {
		return nil, fmt.Errorf("no finished tool result with ID %s", id)
	}
	head, err := ReplaceWithResult(d, id, r.Content, true)
	if err != nil {
		return nil, err
	}
	return append(head, AddJobResult(d, job, JobLost, true)...), nil
}

// jobBlock is a Job Result block without its last line ending.
func jobBlock(job, content string, isError bool, nl, gap string) string {
	content = normalizeNewlines(content, nl)
	fence := FenceFor(content)
	header := jobResultPrefix + " `" + job + "`"
	if isError {
		header += " (error)"
	}
	body := fence + nl
	if content != "" {
		body += content + nl
	}
	return header + nl + gap + body + fence
}
