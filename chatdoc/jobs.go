package chatdoc

import (
	"strings"
)

// Background jobs (Flemma 0.12, SPEC §1): a call that runs in the background
// gets a finished result at once, ``**Tool Result:** `ID` (job=JOB)``, and
// its output arrives later as a Job Result block in a @You: message:
//
//	**Job Result:** `JOB`
//
//	```
//	output
//	```
//
// Job results are found on demand (JobResults): they are rare, and only
// the session delivering or recovering a job looks for them.

const jobResultPrefix = "**Job Result:**"

// JobResult is one Job Result block.
type JobResult struct {
	Job     string
	IsError bool
	// Span covers the header through the closing fence's line; Content is
	// the fence's content.
	Span    Span
	Content string
}

// Job is the job a finished result's metadata names (`(job=JOB)`), or "".
func (r *ToolResult) Job() string {
	for _, kv := range r.Extra() {
		if kv.Key == "job" {
			return kv.Value
		}
	}
	return ""
}

// JobRunning is the text of a background call's result while its job runs.
func JobRunning(job string) string { return "Running in background as " + job + "." }

// JobLost is the text of a job that ended with the chatls that ran it.
const JobLost = "Job lost: session ended before completion."

// JobResults are the Job Result blocks of the document's @You: messages,
// in document order. A `**Job Result:**` line elsewhere (in an Assistant
// message, inside a fence) is text.
func (d *Document) JobResults() []JobResult {
	var out []JobResult
	for i := 0; i < d.MessageCount(); i++ {
		// The usual message has none: one search, nothing to walk.
		if m := d.Message(i); m.Role == "You" && strings.Contains(d.Slice(m.Span.Start, m.Span.End), jobResultPrefix) {
			out = append(out, d.jobResultsIn(m)...)
		}
	}
	return out
}

// JobResultsIn are the Job Result blocks of one message (none outside
// @You: messages).
func (d *Document) JobResultsIn(m *Message) []JobResult {
	if m.Role != "You" || !strings.Contains(d.Slice(m.Span.Start, m.Span.End), jobResultPrefix) {
		return nil
	}
	return d.jobResultsIn(m)
}

// JobResult is the job's result block, or nil.
func (d *Document) JobResult(job string) *JobResult {
	for _, j := range d.JobResults() {
		if j.Job == job {
			return &j
		}
	}
	return nil
}

// jobResultsIn walks m's lines outside its tool results' fences.
func (d *Document) jobResultsIn(m *Message) []JobResult {
	var out []JobResult
	at, end := d.lineAfter(m.MarkerSpan.End), m.Span.End
	skip := func(pos int) int { // past a tool result block that covers pos
		for _, r := range m.ToolResults {
			if r.Span.Start <= pos && pos < r.Span.End {
				return r.Span.End
			}
		}
		return pos
	}
	for at < end {
		if next := skip(at); next != at {
			at = next
			continue
		}
		lineEnd := d.lineEnd(at, end)
		line := d.Slice(at, lineEnd)
		next := d.lineAfter(lineEnd)
		if ticks := fenceTicks(line); ticks > 0 {
			at = d.pastFence(next, end, ticks) // a user's code block: text
			continue
		}
		job, isError, ok := jobResultHeader(line)
		if !ok {
			at = next
			continue
		}
		// A blank line, or none (compact), then the fence.
		open := next
		if open < end && strings.TrimSpace(d.Slice(open, d.lineEnd(open, end))) == "" {
			open = d.lineAfter(d.lineEnd(open, end))
		}
		opener := d.Slice(open, d.lineEnd(open, end))
		ticks := fenceTicks(opener)
		if open >= end || ticks == 0 {
			at = next
			continue
		}
		contentStart := d.lineAfter(d.lineEnd(open, end))
		closeAt := d.fenceCloser(contentStart, end, ticks)
		content := ""
		if closeAt > contentStart {
			content = strings.TrimSuffix(strings.TrimSuffix(d.Slice(contentStart, closeAt), "\n"), "\r")
		}
		blockEnd := d.lineAfter(d.lineEnd(closeAt, end))
		out = append(out, JobResult{Job: job, IsError: isError, Span: Span{Start: at, End: blockEnd}, Content: content})
		at = blockEnd
	}
	return out
}

// jobResultHeader parses **Job Result:** `JOB` with an optional " (error)".
func jobResultHeader(line string) (job string, isError, ok bool) {
	if !strings.HasPrefix(line, jobResultPrefix) {
		return "", false, false
	}
	job, rest, ok := backtickField(trimBlanksLeft(line[len(jobResultPrefix):]))
	if !ok {
		return "", false, false
	}
	switch strings.TrimSpace(rest) {
	case "":
		return job, false, true
	case "(error)":
		return job, true, true
	}
	return "", false, false
}

// fenceTicks is the length of the backtick fence the line opens (0: none).
func fenceTicks(line string) int {
	n := 0
	for n < len(line) && line[n] == '`' {
		n++
	}
	if n < 3 {
		return 0
	}
	return n
}

// lineEnd is the end of the line starting at pos, without its line ending.
func (d *Document) lineEnd(pos, limit int) int {
	text := d.Slice(pos, limit)
	i := strings.IndexByte(text, '\n')
	if i < 0 {
		return limit
	}
	if i > 0 && text[i-1] == '\r' {
		i--
	}
	return pos + i
}

// fenceCloser is where the line closing a fence of ticks starts, searching
// from pos; limit when it never closes.
func (d *Document) fenceCloser(pos, limit, ticks int) int {
	for pos < limit {
		e := d.lineEnd(pos, limit)
		line := strings.TrimRight(d.Slice(pos, e), " \t")
		if fenceTicks(line) >= ticks && strings.Trim(line, "`") == "" {
			return pos
		}
		pos = d.lineAfter(e)
		if pos == e { // the last line, without a line ending
			break
		}
	}
	return limit
}

// pastFence is the offset after the fence of ticks that content from pos is in.
func (d *Document) pastFence(pos, limit, ticks int) int {
	c := d.fenceCloser(pos, limit, ticks)
	if c >= limit {
		return limit
	}
	return d.lineAfter(d.lineEnd(c, limit))
}
