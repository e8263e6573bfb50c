package tools

import (
	"strings"

	"github.com/chatls/chatls/internal/clip"
)

// Limits bound the text a result puts into the document (SPEC §5 "Output limits").
type Limits struct {
	MaxLines int
	MaxBytes int
	// MaxSavedBytes caps the full-output file so a command printing gigabytes
	// cannot fill the disk either; the document says when the file was cut.
	MaxSavedBytes int64
}

// DefaultLimits are Flemma's and pi's: 2000 lines or 50 KB, whichever comes first.
var DefaultLimits = Limits{MaxLines: 2000, MaxBytes: 50 * 1024, MaxSavedBytes: 64 << 20}

// OrDefault fills zero fields from DefaultLimits.
func (l Limits) OrDefault() Limits {
	if l.MaxLines <= 0 {
		l.MaxLines = DefaultLimits.MaxLines
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxSavedBytes <= 0 {
		l.MaxSavedBytes = DefaultLimits.MaxSavedBytes
	}
	return l
}

// countLines counts lines the way editors do: a final line without "\n" counts.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// headLines keeps the first lines of s that fit both limits. It returns the
// kept text and how many lines it holds. A first line longer than maxBytes is
// cut (rune-safe) rather than dropped, so the reader always sees something.
func headLines(s string, maxLines, maxBytes int) (string, int) {
	kept, lines := 0, 0
	for kept < len(s) && lines < maxLines {
		end := strings.IndexByte(s[kept:], '\n')
		next := len(s)
		if end >= 0 {
			next = kept + end + 1
		}
		if next > maxBytes {
			if lines == 0 {
				return clip.Head(s, maxBytes), 1
			}
			break
		}
		kept = next
		lines++
	}
	return s[:kept], lines
}

// tailLines keeps the last lines of s that fit both limits (mirror of headLines).
func tailLines(s string, maxLines, maxBytes int) (string, int) {
	start, lines := len(s), 0
	body := strings.TrimSuffix(s, "\n")
	pos := len(body)
	for pos > 0 && lines < maxLines {
		i := strings.LastIndexByte(body[:pos], '\n')
		from := i + 1
		if len(s)-from > maxBytes {
			if lines == 0 {
				tail := s[len(s)-maxBytes:]
				return strings.ToValidUTF8(tail, ""), 1
			}
			break
		}
		start = from
		lines++
		pos = i
		if i < 0 {
			break
		}
	}
	return s[start:], lines
}
