package tools

import (
	"os"
	"strings"
)

// SaveOutput writes a tool's output to a new file in dir named after the
// call's ID, for output that cannot go into the document (the user wrote
// into the block while the tool ran). It returns the file's path.
func SaveOutput(dir, id, text string) (string, error) {
	f, err := os.CreateTemp(dir, "chatls-output-"+safeFileName(id)+"-*.txt")
	if err != nil {
		return "", err
	}
	_, werr := f.WriteString(text)
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", werr
	}
	return f.Name(), nil
}

// FullOutputPath finds the file named by a truncated result's note
// ("[Showing lines A-B of N. Full output: PATH]"), or "".
func FullOutputPath(content string) string {
	const marker = ". Full output: "
	i := strings.LastIndex(content, marker)
	if i < 0 {
		return ""
	}
	lineStart := strings.LastIndexByte(content[:i], '\n') + 1
	rest := content[i+len(marker):]
	end := strings.IndexByte(rest, '\n')
	if end < 0 {
		end = len(rest)
	}
	line := strings.TrimRight(rest[:end], "\r")
	if !strings.HasPrefix(content[lineStart:], "[Showing lines ") || !strings.HasSuffix(line, "]") {
		return ""
	}
	return strings.TrimSuffix(line, "]")
}

// Outcomes of a run, as the decision log records them.
const (
	OutcomeFinished    = "finished"
	OutcomeError       = "error"
	OutcomeTimeout     = "timeout"
	OutcomeCancelled   = "cancelled"
	OutcomeInterrupted = "interrupted"
)

// Outcome is how the run that produced r ended; interrupted is a run cut
// short by chatls shutting down.
func (r Result) Outcome(interrupted bool) string {
	switch {
	case interrupted:
		return OutcomeInterrupted
	case r.Cancelled:
		return OutcomeCancelled
	case r.TimedOut:
		return OutcomeTimeout
	case r.IsError:
		return OutcomeError
	}
	return OutcomeFinished
}
